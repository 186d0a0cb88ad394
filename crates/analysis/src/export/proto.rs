//! The few protobuf encodings a Perfetto trace needs, written by hand: a trace is a flat
//! sequence of length-prefixed packets, and pulling in a protobuf code generator for five
//! message types would cost more build time than it saves.

/// One message being encoded.
#[derive(Debug, Default, Clone)]
pub struct Msg(pub Vec<u8>);

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

impl Msg {
    fn key(&mut self, field: u32, wire: u8) {
        varint(&mut self.0, (u64::from(field) << 3) | u64::from(wire));
    }

    /// A varint field (uint32, uint64, int32 ≥ 0, enum, bool).
    pub fn uint(&mut self, field: u32, value: u64) -> &mut Self {
        self.key(field, 0);
        varint(&mut self.0, value);
        self
    }

    /// An int64 field (two's complement varint, as protobuf encodes a negative int64).
    pub fn int(&mut self, field: u32, value: i64) -> &mut Self {
        self.uint(field, value as u64)
    }

    /// A fixed64 field.
    pub fn fixed64(&mut self, field: u32, value: u64) -> &mut Self {
        self.key(field, 1);
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// A double field.
    pub fn double(&mut self, field: u32, value: f64) -> &mut Self {
        self.key(field, 1);
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// A length-delimited field: bytes, a string or a message.
    pub fn bytes(&mut self, field: u32, value: &[u8]) -> &mut Self {
        self.key(field, 2);
        varint(&mut self.0, value.len() as u64);
        self.0.extend_from_slice(value);
        self
    }

    pub fn string(&mut self, field: u32, value: &str) -> &mut Self {
        self.bytes(field, value.as_bytes())
    }

    pub fn message(&mut self, field: u32, value: &Msg) -> &mut Self {
        self.bytes(field, &value.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_protobuf() {
        let mut m = Msg::default();
        m.uint(1, 150);
        assert_eq!(m.0, [0x08, 0x96, 0x01]);
        let mut m = Msg::default();
        m.string(2, "testing");
        assert_eq!(m.0, [0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']);
        let mut m = Msg::default();
        m.int(3, -1);
        assert_eq!(m.0.len(), 11, "a negative int64 takes ten bytes");
        let mut m = Msg::default();
        m.fixed64(47, 1);
        assert_eq!(m.0[..2], [0xf9, 0x02]);
    }
}

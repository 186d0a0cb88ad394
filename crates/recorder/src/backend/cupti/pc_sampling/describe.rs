//! What each sampled PC is: its instruction text (nvdisasm) and source line (nvdisasm's line
//! markers, else CUPTI's SASS-to-source correlation), told once per PC as a
//! [`PcInstruction`]. Cubins are copied at module load, since CUPTI's pointer lives only for
//! the callback, and kept by the CRC CUPTI's PC records name them by.

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::Arc;
use std::time::Instant;

use rocprofiler_sdk_sys::cupti::PcSamplingApi;

use super::cubin;
use super::disasm::{DisasmError, Disassembler, Listing};
use crate::backend::cupti::api::pc_sampling as api;
use crate::pipeline::records::PcInstruction;

/// Cubin bytes kept at most: a process that loads more keeps the first, and its later modules'
/// PCs keep their offsets and functions only.
pub const MAX_CUBIN_BYTES: usize = 512 << 20;
/// The largest cubin copied.
pub const MAX_CUBIN: usize = 256 << 20;
/// Instructions of listings held at once; past it the cache starts again.
const MAX_LISTED: usize = 1 << 18;
/// CUPTI correlation queries made at most (each parses the cubin's line table).
const MAX_SOURCE_QUERIES: usize = 1 << 16;

/// The cubins loaded, by CRC.
#[derive(Debug, Default)]
pub struct Cubins {
    by_crc: HashMap<u64, Arc<[u8]>>,
    bytes: usize,
    /// Modules not kept: too large, past [`MAX_CUBIN_BYTES`], or their CRC unknown.
    pub skipped: u64,
}

impl Cubins {
    /// Whether a cubin of `len` bytes would be kept: asked before its CRC is computed, on the
    /// loading thread, so a cubin past the limits costs nothing more.
    pub fn has_room(&self, len: usize) -> bool {
        len > 0 && len <= MAX_CUBIN && self.bytes + len <= MAX_CUBIN_BYTES
    }

    /// Keeps `cubin` under `crc`; false where it is not kept.
    pub fn add(&mut self, crc: u64, cubin: &[u8]) -> bool {
        if self.by_crc.contains_key(&crc) {
            return true;
        }
        if !self.has_room(cubin.len()) {
            self.skipped += 1;
            return false;
        }
        self.bytes += cubin.len();
        self.by_crc.insert(crc, Arc::from(cubin));
        true
    }

    pub fn get(&self, crc: u64) -> Option<Arc<[u8]>> {
        self.by_crc.get(&crc).cloned()
    }
}

/// A PC's description was cut short by its caller's time, not given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfTime;

/// The listings of the functions sampled PCs are in, and how to get more.
#[derive(Debug)]
pub struct Describer {
    disassembler: Option<Disassembler>,
    listings: HashMap<(u64, u32), Option<Listing>>,
    listed: usize,
    source_queries: usize,
    /// Whether a failure to disassemble was said (once per run).
    said: bool,
}

/// One PC to describe.
#[derive(Debug, Clone, Copy)]
pub struct Pc<'a> {
    pub kernel_id: u64,
    pub crc: u64,
    pub function_index: u32,
    pub function: &'a CStr,
    pub offset: u64,
}

impl Describer {
    pub fn new(disassembler: Option<Disassembler>) -> Describer {
        Describer { disassembler, listings: HashMap::new(), listed: 0, source_queries: 0, said: false }
    }

    /// What is known of `pc`, given its module's `cubin`, found by `until`; `None` where
    /// nothing is, and [`OutOfTime`] where its function's listing was cut short by `until`,
    /// so the PC is described later.
    pub fn describe(
        &mut self,
        api: &PcSamplingApi,
        pc: &Pc<'_>,
        cubin: Option<&Arc<[u8]>>,
        until: Instant,
    ) -> Result<Option<PcInstruction>, OutOfTime> {
        let Some(cubin) = cubin else { return Ok(None) };
        let line = self.listing(pc, cubin, until)?.and_then(|l| l.get(&pc.offset)).cloned();
        let (text, mut file, mut number) = match line {
            Some(l) => (Some(l.text), l.source_file, l.source_line),
            None => (None, None, None),
        };
        if number.is_none()
            && self.source_queries < MAX_SOURCE_QUERIES
            && Instant::now() < until
            && has_lines(cubin, pc)
        {
            self.source_queries += 1;
            if let Some(source) = api::source_line(api, cubin, pc.function, pc.offset) {
                file = Some(Arc::from(source.file));
                number = Some(source.line);
            }
        }
        if text.is_none() && number.is_none() {
            return Ok(None);
        }
        Ok(Some(PcInstruction {
            kernel_id: pc.kernel_id,
            code_object_id: pc.crc,
            pc_offset: pc.offset,
            text,
            source_file: file,
            source_line: number,
        }))
    }

    fn listing(&mut self, pc: &Pc<'_>, cubin: &[u8], until: Instant) -> Result<Option<&Listing>, OutOfTime> {
        let key = (pc.crc, pc.function_index);
        if !self.listings.contains_key(&key) {
            let listing = self.disassemble(pc, cubin, until)?;
            self.listed += listing.as_ref().map_or(0, |l| l.len());
            if self.listed > MAX_LISTED {
                self.listings.clear();
                self.listed = listing.as_ref().map_or(0, |l| l.len());
            }
            self.listings.insert(key, listing);
        }
        Ok(self.listings.get(&key).and_then(Option::as_ref))
    }

    /// The listing of `pc`'s function, `None` where it has none (said once per run).
    fn disassemble(&mut self, pc: &Pc<'_>, cubin: &[u8], until: Instant) -> Result<Option<Listing>, OutOfTime> {
        let Some(disassembler) = self.disassembler.as_ref() else { return Ok(None) };
        let Ok(function) = pc.function.to_str() else { return Ok(None) };
        let listed = disassembler
            .write_cubin(pc.crc, cubin)
            .and_then(|path| disassembler.function(&path, function, pc.function_index, until));
        match listed {
            Ok(listing) => Ok(Some(listing)),
            Err(DisasmError::OutOfTime { .. }) => Err(OutOfTime),
            Err(e) => {
                if !std::mem::replace(&mut self.said, true) {
                    crate::say!("rocprof-rs: sampled PCs have no instruction text: {e}");
                }
                Ok(None)
            }
        }
    }

    /// Removes what was written for the disassembler.
    pub fn clean(&self) {
        if let Some(d) = &self.disassembler {
            d.clean();
        }
    }
}

/// Whether CUPTI may be asked for `pc`'s source line: only where its cubin has a line table
/// and its function holds the offset ([`cubin`]).
fn has_lines(cubin: &[u8], pc: &Pc<'_>) -> bool {
    cubin::function_with_lines(cubin, pc.function_index, pc.function.to_bytes()).is_some_and(|f| pc.offset < f.size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubins_past_their_limits_are_skipped_and_counted() {
        let mut cubins = Cubins::default();
        assert!(cubins.add(1, b"elf"));
        assert!(cubins.add(1, b"other bytes, same crc"));
        assert!(!cubins.add(2, b""));
        assert_eq!(cubins.skipped, 1);
        assert_eq!(cubins.get(1).as_deref(), Some(&b"elf"[..]));
    }
}

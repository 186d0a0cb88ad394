//! Just enough of a cubin's ELF to know whether CUPTI's SASS-to-source correlation may be asked
//! about one of its PCs.
//!
//! `cuptiGetSassToSourceCorrelation` trusts its cubin: on an H200 (CUPTI 13.0) it faulted
//! (SIGSEGV, SIGBUS) in 11 of 16 sampled runs of a PyTorch decode loop, asked about PCs in
//! PyTorch's and cuBLAS's cubins, which carry no line table. So it is asked only about a
//! function this reader finds in a cubin that has one: an NVIDIA ELF64 whose `.debug_line` lies
//! within the bytes, and whose symbol at CUPTI's function index is a function of that name.
//! Every read is bounds-checked; any bytes give an answer, never a panic.

/// `EM_CUDA`.
const MACHINE_CUDA: u16 = 190;
const SECTION_HEADER: usize = 64;
const SYMBOL: usize = 24;
const SHT_SYMTAB: u32 = 2;
const STT_FUNC: u8 = 2;

/// What the correlation needs of one function in a cubin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// Its size in bytes: a PC offset past it is not in it.
    pub size: u64,
}

/// The function at symbol `index` of `cubin`, if `cubin` is an NVIDIA ELF64 with a line table
/// and that symbol is a function named `name`.
pub fn function_with_lines(cubin: &[u8], index: u32, name: &[u8]) -> Option<Function> {
    let elf = Elf::read(cubin)?;
    elf.section_named(b".debug_line")?;
    let symtab = elf.sections().find(|s| s.kind == SHT_SYMTAB)?;
    let strtab = elf.section(symtab.link)?;
    let at = usize::try_from(index).ok()?.checked_mul(SYMBOL)?;
    let symbol = symtab.bytes.get(at..at.checked_add(SYMBOL)?)?;
    let kind = symbol[4] & 0xf;
    let symbol_name = c_string(strtab.bytes, u32_at(symbol, 0)?)?;
    let size = u64_at(symbol, 16)?;
    (kind == STT_FUNC && symbol_name == name && size > 0).then_some(Function { size })
}

struct Elf<'a> {
    bytes: &'a [u8],
    headers: &'a [u8],
    names: u32,
}

struct Section<'a> {
    name: u32,
    kind: u32,
    link: u32,
    bytes: &'a [u8],
}

impl<'a> Elf<'a> {
    fn read(bytes: &'a [u8]) -> Option<Elf<'a>> {
        // Magic, 64-bit, little-endian.
        if bytes.get(..6)? != b"\x7fELF\x02\x01" || u16_at(bytes, 18)? != MACHINE_CUDA {
            return None;
        }
        let offset = usize::try_from(u64_at(bytes, 0x28)?).ok()?;
        if usize::from(u16_at(bytes, 0x3a)?) != SECTION_HEADER {
            return None;
        }
        let count = usize::from(u16_at(bytes, 0x3c)?);
        let headers = bytes.get(offset..offset.checked_add(count * SECTION_HEADER)?)?;
        Some(Elf { bytes, headers, names: u32::from(u16_at(bytes, 0x3e)?) })
    }

    fn section(&self, index: u32) -> Option<Section<'a>> {
        let at = usize::try_from(index).ok()?.checked_mul(SECTION_HEADER)?;
        let header = self.headers.get(at..at.checked_add(SECTION_HEADER)?)?;
        let offset = usize::try_from(u64_at(header, 24)?).ok()?;
        let size = usize::try_from(u64_at(header, 32)?).ok()?;
        Some(Section {
            name: u32_at(header, 0)?,
            kind: u32_at(header, 4)?,
            link: u32_at(header, 40)?,
            bytes: self.bytes.get(offset..offset.checked_add(size)?)?,
        })
    }

    /// The sections whose headers and bytes lie within the file.
    fn sections(&self) -> impl Iterator<Item = Section<'a>> + '_ {
        (0..(self.headers.len() / SECTION_HEADER) as u32).filter_map(|i| self.section(i))
    }

    fn section_named(&self, name: &[u8]) -> Option<Section<'a>> {
        let names = self.section(self.names)?;
        self.sections().find(|s| !s.bytes.is_empty() && c_string(names.bytes, s.name) == Some(name))
    }
}

/// The NUL-terminated string at `offset` of a string table, without its NUL.
fn c_string(table: &[u8], offset: u32) -> Option<&[u8]> {
    let rest = table.get(usize::try_from(offset).ok()?..)?;
    Some(&rest[..rest.iter().position(|b| *b == 0)?])
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal cubin: sections null, .shstrtab, .strtab, .symtab (null + `k`, a function of
    /// 0x80 bytes, and `d`, an object), and `.debug_line` where `lines`.
    fn cubin(lines: bool) -> Vec<u8> {
        let shstrtab = b"\0.shstrtab\0.strtab\0.symtab\0.debug_line\0".to_vec();
        let strtab = b"\0k\0d\0".to_vec();
        let mut symtab = vec![0u8; SYMBOL];
        for (name, info, size) in [(1u32, STT_FUNC | 0x10, 0x80u64), (3, 1, 8)] {
            let mut s = vec![0u8; SYMBOL];
            s[..4].copy_from_slice(&name.to_le_bytes());
            s[4] = info;
            s[16..24].copy_from_slice(&size.to_le_bytes());
            symtab.extend(s);
        }
        let debug_line = vec![1u8; 16];
        let mut body = Vec::new();
        let mut place = |data: &[u8]| {
            let at = 64 + body.len();
            body.extend_from_slice(data);
            (at as u64, data.len() as u64)
        };
        let sections = [
            (0u32, 0u32, 0u32, (0u64, 0u64)),
            (1, 3, 0, place(&shstrtab)),
            (11, 3, 0, place(&strtab)),
            (19, SHT_SYMTAB, 2, place(&symtab)),
            (27, 1, 0, if lines { place(&debug_line) } else { (0, 0) }),
        ];
        let mut elf = vec![0u8; 64];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[18..20].copy_from_slice(&MACHINE_CUDA.to_le_bytes());
        elf[0x28..0x30].copy_from_slice(&((64 + body.len()) as u64).to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&(SECTION_HEADER as u16).to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&(sections.len() as u16).to_le_bytes());
        elf[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes());
        elf.extend(body);
        for (name, kind, link, (offset, size)) in sections {
            let mut h = vec![0u8; SECTION_HEADER];
            h[..4].copy_from_slice(&name.to_le_bytes());
            h[4..8].copy_from_slice(&kind.to_le_bytes());
            h[24..32].copy_from_slice(&offset.to_le_bytes());
            h[32..40].copy_from_slice(&size.to_le_bytes());
            h[40..44].copy_from_slice(&link.to_le_bytes());
            elf.extend(h);
        }
        elf
    }

    #[test]
    fn a_function_of_a_cubin_with_a_line_table_is_found_by_index_and_name() {
        let elf = cubin(true);
        assert_eq!(function_with_lines(&elf, 1, b"k"), Some(Function { size: 0x80 }));
        assert_eq!(function_with_lines(&elf, 1, b"other"), None, "the name must match");
        assert_eq!(function_with_lines(&elf, 2, b"d"), None, "an object is not a function");
        assert_eq!(function_with_lines(&elf, 3, b"k"), None, "past the symbols");
        assert_eq!(function_with_lines(&elf, u32::MAX, b"k"), None);
    }

    #[test]
    fn no_line_table_or_no_elf_means_no_question() {
        assert_eq!(function_with_lines(&cubin(false), 1, b"k"), None);
        let mut wrong_machine = cubin(true);
        wrong_machine[18] = 62;
        assert_eq!(function_with_lines(&wrong_machine, 1, b"k"), None);
        let elf = cubin(true);
        for cut in [0, 5, 63, elf.len() / 2, elf.len() - 1] {
            assert_eq!(function_with_lines(&elf[..cut], 1, b"k"), None, "cut at {cut}");
        }
        assert_eq!(function_with_lines(b"\x7fELF\x02\x01", 0, b""), None);
    }
}

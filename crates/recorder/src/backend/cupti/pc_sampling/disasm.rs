//! Instruction text and source lines from `nvdisasm`, for the functions PC samples landed in.
//!
//! `nvdisasm -c -g -fun NAME cubin` prints one function's SASS, each instruction as
//! `/*0010*/  FFMA R6, R6, R2, R3 ;` at its offset from the function's start (the offsets CUPTI's
//! PC records carry), preceded where the cubin has a line table by
//! `//## File "/path/x.cu", line 61` for the instructions that follow. [`parse`] reads that;
//! [`Disassembler`] finds and runs the program. Where there is none, PCs keep their offset and
//! function, and the source line comes from CUPTI alone.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One instruction as nvdisasm prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: Box<str>,
    pub source_file: Option<Arc<str>>,
    pub source_line: Option<u32>,
}

/// The instructions of a listing, by offset from their function's start.
pub type Listing = HashMap<u64, Line>;

/// Instructions read from one listing at most: a function of more is cut there.
pub const MAX_INSTRUCTIONS: usize = 1 << 20;

/// The instructions of the one function in `text` (the output of `nvdisasm -c [-g] -fun`);
/// lines that are neither an instruction nor a line marker are skipped. Never fails: a text
/// that is not nvdisasm's gives an empty listing.
pub fn parse(text: &str) -> Listing {
    let mut listing = Listing::new();
    let mut files: HashMap<&str, Arc<str>> = HashMap::new();
    let mut source: Option<(Arc<str>, u32)> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(marker) = line.strip_prefix("//## File ") {
            source = line_marker(marker).map(|(file, number)| {
                let file = files.entry(file).or_insert_with(|| Arc::from(file)).clone();
                (file, number)
            });
            continue;
        }
        let Some((offset, instruction)) = instruction(line) else { continue };
        if listing.len() >= MAX_INSTRUCTIONS {
            break;
        }
        listing.insert(
            offset,
            Line {
                text: instruction.into(),
                source_file: source.as_ref().map(|(f, _)| f.clone()),
                source_line: source.as_ref().map(|(_, n)| *n),
            },
        );
    }
    listing
}

/// `"/path/x.cu", line 61` (and anything after, such as nvdisasm's `inlined at`).
fn line_marker(marker: &str) -> Option<(&str, u32)> {
    let rest = marker.strip_prefix('"')?;
    let (file, rest) = rest.split_once('"')?;
    let rest = rest.trim_start().strip_prefix(',')?.trim_start().strip_prefix("line")?.trim_start();
    let digits = rest.find(|c: char| !c.is_ascii_digit()).map_or(rest, |end| &rest[..end]);
    let number = digits.parse().ok().filter(|n| *n > 0)?;
    (!file.is_empty()).then_some((file, number))
}

/// `/*0010*/   @!P0 BRA `(.L_x_0) ;` as (0x10, "@!P0 BRA `(.L_x_0)").
fn instruction(line: &str) -> Option<(u64, &str)> {
    let rest = line.strip_prefix("/*")?;
    let (offset, rest) = rest.split_once("*/")?;
    if offset.is_empty() || offset.len() > 16 {
        return None;
    }
    let offset = u64::from_str_radix(offset, 16).ok()?;
    let text = rest.trim().trim_end_matches(';').trim_end();
    // A trailing encoding comment (`/* 0x... */`, with `-hex`) is not the instruction.
    let text = text.split("/* 0x").next().unwrap_or(text).trim_end().trim_end_matches(';').trim_end();
    (!text.is_empty()).then_some((offset, text))
}

/// How long one function's disassembly may take before it is given up.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Listing text read from nvdisasm at most (64 MiB): a function of more is not described.
const MAX_OUTPUT: u64 = 64 << 20;

/// Where nvdisasm is, and the cubins written out for it.
#[derive(Debug)]
pub struct Disassembler {
    program: PathBuf,
    scratch: PathBuf,
}

/// Why a function has no listing.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    #[error("cannot write the cubin for nvdisasm to {path}: {source}")]
    Scratch { path: String, source: std::io::Error },
    #[error("cannot run {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error("{program} ran over {}s on {function}", TIMEOUT.as_secs())]
    Timeout { program: String, function: String },
    /// The caller's time ran out first: the function may be asked for again later.
    #[error("no time was left to disassemble {function}")]
    OutOfTime { function: String },
}

impl Disassembler {
    /// nvdisasm from `setting` (`ROCPROF_RS_NVDISASM`: a path, or `off`), else `PATH`, else
    /// CUDA's own folders; `None` where there is none or it is turned off. Cubins are written
    /// for it to a folder of the process's own under the temporary directory, never beside
    /// the application's output.
    pub fn find(setting: Option<&str>) -> Option<Disassembler> {
        let program = match setting.map(str::trim).filter(|s| !s.is_empty()) {
            Some("off" | "0" | "none") => return None,
            Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file())?,
            None => search()?,
        };
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let scratch = std::env::temp_dir().join(format!("rocprof-rs-cubins-{}-{nanos}", std::process::id()));
        Some(Disassembler { program, scratch })
    }

    /// The program run.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The file `cubin` (named by its CRC) is written to, once, for every function of it.
    pub fn write_cubin(&self, crc: u64, cubin: &[u8]) -> Result<PathBuf, DisasmError> {
        let path = self.scratch.join(format!("{crc:016x}.cubin"));
        if path.is_file() {
            return Ok(path);
        }
        let scratch = |source| DisasmError::Scratch { path: path.display().to_string(), source };
        std::fs::create_dir_all(&self.scratch).map_err(scratch)?;
        let partial = path.with_extension("partial");
        std::fs::write(&partial, cubin).and_then(|()| std::fs::rename(&partial, &path)).map_err(scratch)?;
        Ok(path)
    }

    /// `function`'s listing, from the cubin at `cubin`: asked by the symbol index CUPTI gave
    /// (`index`), which nvdisasm's `-fun` takes (2025.3 refuses a name: "expected a number"),
    /// else by name; each run ends by `until`, and none starts after it. A run `until` cuts
    /// short is [`DisasmError::OutOfTime`], not a failure of the function.
    pub fn function(&self, cubin: &Path, function: &str, index: u32, until: Instant) -> Result<Listing, DisasmError> {
        let listing = self.run(cubin, &index.to_string(), function, until)?;
        if !listing.is_empty() {
            return Ok(listing);
        }
        self.run(cubin, function, function, until)
    }

    fn run(&self, cubin: &Path, fun: &str, function: &str, until: Instant) -> Result<Listing, DisasmError> {
        let left = until.saturating_duration_since(Instant::now());
        let out_of_time = || DisasmError::OutOfTime { function: function.to_owned() };
        if left.is_zero() {
            return Err(out_of_time());
        }
        let limit = left.min(TIMEOUT);
        let program = self.program.display().to_string();
        let mut child = Command::new(&self.program)
            .args(["-c", "-g", "-fun", fun])
            .arg(cubin)
            // The tool's own injection must not follow it into the disassembler.
            .env_remove("LD_PRELOAD")
            .env_remove("CUDA_INJECTION64_PATH")
            .env_remove("NVTX_INJECTION64_PATH")
            .env_remove("ROCP_TOOL_LIBRARIES")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| DisasmError::Spawn { program: program.clone(), source })?;
        let stdout = child.stdout.take();
        let reader = std::thread::Builder::new().name("rocprof-rs-nvdisasm".into()).spawn(move || {
            crate::threads::block_signals_of_tool_threads();
            let mut text = String::new();
            if let Some(out) = stdout {
                let _ = out.take(MAX_OUTPUT).read_to_string(&mut text);
            }
            text
        });
        let started = Instant::now();
        loop {
            match child.try_wait() {
                // An application that reaps every child (SIGCHLD ignored, `waitpid(-1)`) took
                // its status: it has ended, and its pid is not ours to kill any more.
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    if limit < TIMEOUT {
                        return Err(out_of_time());
                    }
                    return Err(DisasmError::Timeout { program, function: function.to_owned() });
                }
            }
        }
        let text = reader.ok().and_then(|r| r.join().ok()).unwrap_or_default();
        Ok(parse(&text))
    }

    /// Removes the cubins written, at the end of the run.
    pub fn clean(&self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn search() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cuda_home = std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin"));
    std::env::split_paths(&path)
        .chain(cuda_home)
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join("nvdisasm"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = r#"	.target	sm_90
//--------------------- .text._ZN3pcs9fma_chainEPfffi --------------------------
	.section	.text._ZN3pcs9fma_chainEPfffi,"ax",@progbits
_ZN3pcs9fma_chainEPfffi:
.text._ZN3pcs9fma_chainEPfffi:
	//## File "/src/pcs_app.cu", line 59
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/src/pcs_app.cu", line 61
        /*0010*/                   LDC R5, c[0x0][0x220] ;
        /*0060*/              @!P0 BRA `(.L_x_0) ;
.L_x_2:
	//## File "/src/pcs_app.cu", line 63 inlined at "/src/pcs_app.cu", line 80
        /*00e0*/                   FFMA R6, R6, R2, R3 ;
"#;

    #[test]
    fn instructions_are_read_at_their_offsets_with_the_line_before_them() {
        let listing = parse(LISTING);
        assert_eq!(listing.len(), 4);
        assert_eq!(&*listing[&0x60].text, "@!P0 BRA `(.L_x_0)");
        assert_eq!(listing[&0x60].source_line, Some(61));
        assert_eq!(listing[&0xe0].source_line, Some(63));
        assert_eq!(listing[&0x0].source_file.as_deref(), Some("/src/pcs_app.cu"));
        assert_eq!(&*listing[&0x10].text, "LDC R5, c[0x0][0x220]");
    }

    #[test]
    fn a_listing_without_line_markers_has_text_only() {
        let listing = parse("        /*0020*/                   S2R R0, SR_TID.X ;\n");
        assert_eq!(listing[&0x20], Line { text: "S2R R0, SR_TID.X".into(), source_file: None, source_line: None });
    }

    #[test]
    fn text_that_is_not_a_listing_gives_nothing() {
        for text in ["", "/**/ x", "/*zz*/ MOV ;", "/*0010*/ ;", "//## File \"\", line 3\n", "/*00000000000000001*/ X"]
        {
            assert!(parse(text).is_empty(), "{text:?}");
        }
        assert_eq!(line_marker("\"a.cu\", line 0"), None);
        assert_eq!(line_marker("\"a.cu\", line 7 inlined"), Some(("a.cu", 7)));
    }

    /// A disassembler whose program is the shell script `body`, in a folder of its own.
    fn fake(name: &str, body: &str) -> Disassembler {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("rocprof-rs-fake-nvdisasm-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("nvdisasm");
        std::fs::write(&program, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        Disassembler { program, scratch: dir.join("scratch") }
    }

    #[test]
    fn a_run_prints_its_listing_and_one_cut_short_by_the_caller_can_be_asked_again() {
        let listing = fake("listing", "echo '        /*0020*/   S2R R0, SR_TID.X ;'");
        let cubin = listing.write_cubin(7, b"elf").unwrap();
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(listing.function(&cubin, "k", 3, far).unwrap().len(), 1);

        let slow = fake("slow", "exec sleep 30");
        let started = Instant::now();
        let cut = slow.function(&cubin, "k", 3, started + Duration::from_millis(200));
        assert!(matches!(cut, Err(DisasmError::OutOfTime { .. })), "{cut:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "the caller's time, not nvdisasm's limit");
        assert!(matches!(slow.function(&cubin, "k", 3, Instant::now()), Err(DisasmError::OutOfTime { .. })));
        listing.clean();
        assert!(!cubin.exists());
    }

    #[test]
    fn an_off_setting_or_a_missing_path_finds_no_disassembler() {
        assert!(Disassembler::find(Some("off")).is_none());
        assert!(Disassembler::find(Some("/no/such/nvdisasm")).is_none());
    }
}

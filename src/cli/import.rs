//! `rocprof-rs import`: other profilers' outputs as a rocprof-rs dataset.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

/// The options of `rocprof-rs import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// rocprofv3 CSV output directories or results.json, rocpd databases, rocprof v1 results.csv or
    /// results.json, rocprof-compute workload folders or their CSV files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The dataset directory to write (created if needed; existing files are never replaced).
    #[arg(short = 'o', long, value_name = "DIR")]
    output: PathBuf,
    /// The file-name stem of the imported files.
    #[arg(long, default_value = "imported")]
    name: String,
    /// text or json: what was imported.
    #[arg(long, value_name = "text|json", default_value = "text")]
    format: super::TextOrJson,
}

/// Runs `import`.
pub fn import(args: ImportArgs) -> ExitCode {
    clean_up_on_signals(&args.output);
    match rocprof_rs_analysis::import::import(&args.inputs, &args.output, &args.name) {
        Ok(report) => {
            if args.format == super::TextOrJson::Json {
                if let Err(e) = super::envelope::Output::Import.print(Some(&args.output), &report) {
                    eprintln!("rocprof-rs: standard output: {e}");
                    return ExitCode::FAILURE;
                }
            } else {
                for input in &report.inputs {
                    let rows: u64 = input.files.iter().map(|(_, n)| n).sum();
                    println!("{}: {} ({} files, {rows} rows)", input.input, input.format, input.files.len());
                    for note in &input.notes {
                        println!("  note: {note}");
                    }
                }
                let tables: Vec<String> = report.rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
                println!("wrote {} under {}", tables.join(", "), report.output);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rocprof-rs: import failed, nothing written: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The signals that end an import early and leave it time to clean up: every one whose default
/// action ends the process and that can be caught, but those a fault raises (SIGSEGV, SIGBUS,
/// SIGFPE, SIGILL) and SIGPIPE (a closed output: the writes fail and say so instead): `kill`'s
/// default, Ctrl-C and Ctrl-\, a closed terminal, the user signals, timers, limits.
const ENDING_SIGNALS: [libc::c_int; 10] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
];

/// Has a thread wait for the [`ENDING_SIGNALS`], blocked in every other thread (they
/// inherit the mask, so this comes before any starts): on one, it lets an import that is moving
/// its files into place finish, removes the import's staging folder (56 MB of a large import
/// were left behind) and, if nothing was published, the output folder if the import created it
/// and left it empty; it says which, and dies of the signal as the process would have.
fn clean_up_on_signals(output: &Path) {
    let staging = rocprof_rs_analysis::import::staging_folder(output);
    let created = !output.exists();
    let output = output.to_path_buf();
    let mut set = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigemptyset initialises the set it is given.
    unsafe { libc::sigemptyset(set.as_mut_ptr()) };
    for signal in ENDING_SIGNALS {
        // SAFETY: the set was initialised by sigemptyset; the signal is a valid number.
        unsafe { libc::sigaddset(set.as_mut_ptr(), signal) };
    }
    // SAFETY: initialised above.
    let set = unsafe { set.assume_init() };
    // SAFETY: blocks the signals in this thread (so in every thread it starts); the set is valid.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return;
    }
    let spawned = std::thread::Builder::new().name("import-signals".into()).spawn(move || {
        let mut signal: libc::c_int = 0;
        // SAFETY: waits for one of the blocked signals of a valid set, written to `signal`.
        if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
            return;
        }
        let published = rocprof_rs_analysis::import::wait_for_publishing();
        // The import goes on writing meanwhile: a file it adds during the removal fails it
        // (the folder is not empty), so it is tried again.
        for _ in 0..100 {
            match std::fs::remove_dir_all(&staging) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => continue,
                _ => break,
            }
        }
        if published {
            eprintln!("rocprof-rs: import stopped by signal {signal} once complete: {} holds it", output.display());
        } else {
            if created {
                let _ = std::fs::remove_dir(&output);
            }
            eprintln!("rocprof-rs: import stopped by signal {signal}: nothing written, its staging folder removed");
        }
        die_of(signal);
    });
    if spawned.is_err() {
        // No thread to clean up: let the signals act as they did.
        // SAFETY: unblocks the signals blocked above, with the same valid set.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// Ends the process as `signal`'s default action does, so its parent sees the signal (a shell
/// prints "Terminated", `$?` is 128 + the signal).
fn die_of(signal: libc::c_int) -> ! {
    // SAFETY: restores the default action of a valid signal number.
    unsafe { libc::signal(signal, libc::SIG_DFL) };
    let mut only = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigemptyset initialises the set it is given.
    unsafe { libc::sigemptyset(only.as_mut_ptr()) };
    // SAFETY: the set was initialised above; the signal is a valid number.
    unsafe { libc::sigaddset(only.as_mut_ptr(), signal) };
    // SAFETY: unblocks the signal in this thread, with the set initialised above.
    unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, only.as_ptr(), std::ptr::null_mut()) };
    // SAFETY: raise sends a valid signal to this thread; its default action ends the process.
    unsafe { libc::raise(signal) };
    std::process::exit(128 + signal)
}

//! Answers of external programs that do not change between runs (`clang --version`, a probe
//! compile, Python's site directories), cached in memory and on disk so that most runs spawn
//! each program at most once. Keys carry the program's path, size and modification time, so
//! an upgraded program is asked again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The answer cached under `key`, computed by `compute` when missing (and then stored; a
/// failure, `None`, is not stored).
pub fn cached(key: &str, compute: impl FnOnce() -> Option<String>) -> Option<String> {
    static MEM: OnceLock<Mutex<Vec<(String, String)>>> = OnceLock::new();
    let mem = MEM.get_or_init(Default::default);
    if let Some(v) = lock(mem).iter().find(|(k, _)| k == key).map(|x| x.1.clone()) {
        return Some(v);
    }
    let disk = super::shim::dir().ok().map(|d| d.join("probes.txt"));
    if let Some(v) = disk.as_deref().and_then(|d| read_disk(d, key)) {
        lock(mem).push((key.to_string(), v.clone()));
        return Some(v);
    }
    let v = compute()?;
    if let Some(disk) = disk {
        // Appending is atomic enough for a cache: a torn entry just misses.
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(disk) {
            let _ = write!(f, "{key}\n{v}\u{1e}");
        }
    }
    lock(mem).push((key.to_string(), v.clone()));
    Some(v)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn read_disk(disk: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(disk).ok()?;
    text.split('\u{1e}').find_map(|entry| {
        entry
            .strip_prefix(key)
            .and_then(|r| r.strip_prefix('\n'))
            .map(str::to_string)
    })
}

/// `path\tsize\tmtime` of an executable (its canonical path), for cache keys.
pub fn exe_key(exe: &Path) -> Option<String> {
    let real: PathBuf = exe.canonicalize().unwrap_or_else(|_| exe.to_path_buf());
    let m = std::fs::metadata(&real).ok()?;
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Some(format!("{}\t{}\t{mtime}", real.display(), m.len()))
}

/// The standard output of `exe ARGS`, cached.
pub fn cached_output(exe: &Path, args: &[&str]) -> Result<String, String> {
    let run = || {
        Command::new(exe)
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .map_err(|e| format!("cannot run `{}`: {e}", exe.display()))
    };
    match exe_key(exe) {
        Some(k) => {
            let key = format!("{k}\t{}", args.join("\u{1f}"));
            let mut err = None;
            cached(&key, || run().map_err(|e| err = Some(e)).ok()).ok_or_else(|| err.unwrap_or_default())
        }
        None => run(),
    }
}

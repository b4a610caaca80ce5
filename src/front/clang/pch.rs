//! The precompiled CUDA prelude. With a real toolkit, Clang's CUDA wrapper pulls in the C++
//! library and the runtime headers (hundreds of megabytes of JSON when dumped); compiled once
//! into a precompiled header per (Clang, toolkit, architecture, flags), they stay out of every
//! later dump, which then holds only what the file itself declares and includes. What the
//! prelude declares is the CUDA runtime and device API, which the lowering models by name.

use super::cache::exe_key;
use super::shim::{cache_base, fnv};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The precompiled prelude for a command line whose flags (everything but the input and the
/// dump options) are `flags`, built on first use. None when it cannot be built (the caller then
/// reads without it).
pub fn prelude(clang: &Path, flags: &[String]) -> Option<PathBuf> {
    let (key, file) = location(clang, flags);
    if file.is_file() {
        return Some(file);
    }
    build(clang, flags, &key, &file)
}

/// Builds the prelude again in place of a file Clang refused (built against headers that have
/// changed since, or by another Clang): a stale file would otherwise be refused forever.
pub fn rebuild(clang: &Path, flags: &[String]) -> Option<PathBuf> {
    let (key, file) = location(clang, flags);
    build(clang, flags, &key, &file)
}

/// The cache key and file of the prelude for `flags`.
fn location(clang: &Path, flags: &[String]) -> (String, PathBuf) {
    let key = format!(
        "{}\n{}\n{}",
        env!("CARGO_PKG_VERSION"),
        exe_key(clang).unwrap_or_else(|| clang.display().to_string()),
        flags.join("\n")
    );
    let file = cache_base()
        .join("autosync-pch")
        .join(format!("{:016x}.pch", fnv(key.as_bytes())));
    (key, file)
}

/// Compiles the prelude into a temporary file and moves it to `file`.
fn build(clang: &Path, flags: &[String], key: &str, file: &Path) -> Option<PathBuf> {
    let dir = file.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    // Unique per process and per call: threads of one process (the tests) build at once.
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        "{:016x}.{}.{}.tmp",
        fnv(key.as_bytes()),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut child = Command::new(clang)
        .args(flags)
        .args(["-fsyntax-only", "-Xclang", "-emit-pch", "-Xclang", "-o", "-Xclang"])
        .arg(&tmp)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    if let Some(mut i) = child.stdin.take() {
        // An empty translation unit: the prelude is what the driver includes implicitly.
        let _ = i.write_all(b"\n");
    }
    let out = child.wait_with_output().ok()?;
    if !out.status.success() || !tmp.is_file() {
        let _ = std::fs::remove_file(&tmp);
        // Reading goes on without it (slower); why is kept beside it for whoever looks.
        let _ = std::fs::write(file.with_extension("log"), &out.stderr);
        return None;
    }
    // Another process may have built the same file: either copy is good.
    std::fs::rename(&tmp, file).ok().or_else(|| {
        let _ = std::fs::remove_file(&tmp);
        file.is_file().then_some(())
    })?;
    Some(file.to_path_buf())
}

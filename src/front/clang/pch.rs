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

/// The precompiled prelude for a command line whose flags (everything but the input and the
/// dump options) are `flags`, built on first use. None when it cannot be built (the caller then
/// reads without it).
pub fn prelude(clang: &Path, flags: &[String]) -> Option<PathBuf> {
    let key = format!(
        "{}\n{}\n{}",
        env!("CARGO_PKG_VERSION"),
        exe_key(clang).unwrap_or_else(|| clang.display().to_string()),
        flags.join("\n")
    );
    let dir = cache_base().join("autosync-pch");
    let file = dir.join(format!("{:016x}.pch", fnv(key.as_bytes())));
    if file.is_file() {
        return Some(file);
    }
    std::fs::create_dir_all(&dir).ok()?;
    let tmp = dir.join(format!("{:016x}.{}.tmp", fnv(key.as_bytes()), std::process::id()));
    let mut child = Command::new(clang)
        .args(flags)
        .args(["-fsyntax-only", "-Xclang", "-emit-pch", "-Xclang", "-o", "-Xclang"])
        .arg(&tmp)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    if let Some(mut i) = child.stdin.take() {
        // An empty translation unit: the prelude is what the driver includes implicitly.
        let _ = i.write_all(b"\n");
    }
    let ok = child.wait().ok()?.success() && tmp.is_file();
    if !ok {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    // Another process may have built the same file: either copy is good.
    std::fs::rename(&tmp, &file).ok().or_else(|| {
        let _ = std::fs::remove_file(&tmp);
        file.is_file().then_some(())
    })?;
    Some(file)
}

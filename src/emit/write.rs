//! Atomic file replacement: readers see the old file or the new one, never a torn write.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces the file at `path` with `contents`: writes a temporary file in the same directory,
/// flushes it to disk, gives it the original file's permissions and renames it over the
/// original. A symbolic link is followed, so the link stays a link.
pub fn write_atomic(path: &Path, contents: &str) -> io::Result<()> {
    write_atomic_inner(path, contents, None)
}

/// A step of [`write_atomic`] at which [`write_atomic_failing`] simulates a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailPoint {
    /// After part of the contents reached the temporary file (a full disk, a crash mid-write).
    MidWrite,
    /// After the temporary file is complete and synced, just before the rename.
    BeforeRename,
}

/// [`write_atomic`] with an injected I/O error at `at`: for tests that the original file
/// survives an interrupted write and no temporary file is left behind.
#[doc(hidden)]
pub fn write_atomic_failing(path: &Path, contents: &str, at: FailPoint) -> io::Result<()> {
    write_atomic_inner(path, contents, Some(at))
}

fn write_atomic_inner(path: &Path, contents: &str, fail: Option<FailPoint>) -> io::Result<()> {
    let injected = |p: FailPoint| {
        if fail == Some(p) {
            Err(io::Error::other(format!("injected failure at {p:?}")))
        } else {
            Ok(())
        }
    };
    let target = resolve_link(path)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?
        .to_string_lossy()
        .into_owned();
    let perms = match fs::metadata(&target) {
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    // A hidden name next to the target, so the rename stays on one file system. A new file
    // is created as `File::create` would (0666 less the umask), not tempfile's private 0600;
    // an existing file's permissions are copied below, as the umask may not allow them.
    let prefix = format!(".{name}.autosync-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(&dir)?;
    // Any early return drops `tmp`, which deletes the temporary file.
    let half = contents.len() / 2;
    tmp.write_all(&contents.as_bytes()[..half])?;
    injected(FailPoint::MidWrite)?;
    tmp.write_all(&contents.as_bytes()[half..])?;
    if let Some(p) = perms {
        tmp.as_file().set_permissions(p)?;
    }
    tmp.as_file().sync_all()?;
    injected(FailPoint::BeforeRename)?;
    tmp.persist(&target).map_err(|e| e.error)?;
    // Make the rename itself durable; not every platform can open a directory, so best effort.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The file a path finally names (links followed), or the path itself when it does not exist.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

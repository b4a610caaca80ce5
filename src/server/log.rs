//! `--log FILE`: a debug log of what the server receives, sends and runs, one timestamped line
//! each, for finding out why an editor shows what it shows. Without the flag it writes nothing.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The log (cheap to clone; every thread writes through one file).
#[derive(Clone)]
pub struct Log {
    file: Option<Arc<Mutex<File>>>,
    start: Instant,
}

impl Log {
    /// A log writing to `path` (created or truncated), or none.
    pub fn open(path: Option<&Path>) -> std::io::Result<Log> {
        let file = path.map(File::create).transpose()?;
        Ok(Log {
            file: file.map(|f| Arc::new(Mutex::new(f))),
            start: Instant::now(),
        })
    }

    /// A log that writes nothing.
    #[cfg(test)]
    pub fn off() -> Log {
        Log {
            file: None,
            start: Instant::now(),
        }
    }

    /// Writes one line, prefixed by the seconds since the server started. Only formats the
    /// line when there is a file.
    pub fn line(&self, what: impl FnOnce() -> String) {
        let Some(f) = &self.file else { return };
        let t = self.start.elapsed().as_secs_f64();
        let mut f = f.lock().unwrap_or_else(|p| p.into_inner());
        // A log that cannot be written must not stop the server.
        let _ = writeln!(f, "[{t:9.3}] {}", what());
        let _ = f.flush();
    }
}

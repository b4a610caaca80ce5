//! Launch configuration from GPUVerify-style header lines (`//--blockDim=256 --gridDim=64`).
//! Precedence (first wins): CLI flags, the config file, the header, `__launch_bounds__`.

/// What a header line says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `--blockDim=`.
    pub block_dim: Option<[u32; 3]>,
    /// `--gridDim=`.
    pub grid_dim: Option<[u32; 3]>,
    /// `--warp-sync=N`.
    pub warp_sync: Option<u32>,
    /// `-DNAME[=VALUE]` flags: macros for Clang.
    pub defines: Vec<(String, Option<String>)>,
    /// Flags we do not understand (reported as notes), with their byte offset.
    pub unknown: Vec<(usize, String)>,
    /// Byte offset of the header line.
    pub offset: Option<usize>,
}

/// Launch settings contributed by one layer of configuration (the config file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchLayer {
    /// Threads per block.
    pub block_dim: Option<[u32; 3]>,
    /// Blocks per grid.
    pub grid_dim: Option<[u32; 3]>,
    /// Warp lock-step width.
    pub warp_sync: Option<u32>,
    /// Scalar parameter values.
    pub params: std::collections::BTreeMap<String, i64>,
}

/// The config file's launch settings for one source file: for all its kernels, and per kernel name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileLaunch {
    /// Settings from entries that match the file by path only.
    pub all: LaunchLayer,
    /// Settings from entries naming a kernel (they win over `all`, key by key).
    pub by_kernel: std::collections::BTreeMap<String, LaunchLayer>,
}

impl FileLaunch {
    /// The merged settings for the kernel called `name`.
    pub fn for_kernel(&self, name: &str) -> LaunchLayer {
        let mut out = self.all.clone();
        if let Some(k) = self.by_kernel.get(name) {
            out.block_dim = k.block_dim.or(out.block_dim);
            out.grid_dim = k.grid_dim.or(out.grid_dim);
            out.warp_sync = k.warp_sync.or(out.warp_sync);
            out.params.extend(k.params.iter().map(|(n, v)| (n.clone(), *v)));
        }
        out
    }
}

/// Parses a dimension: `256`, `[16,16]`, `[8,8,2]`, `{16,16}`.
pub fn parse_dim(s: &str) -> Option<[u32; 3]> {
    let s = s.trim().trim_start_matches(['[', '{']).trim_end_matches([']', '}']);
    let parts: Vec<&str> = s.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: u32 = p.parse().ok()?;
        if v == 0 {
            return None;
        }
        d[i] = v;
    }
    Some(d)
}

/// Finds the first `//--...` line among the leading comment lines of `text` and parses it.
pub fn parse_header(text: &str) -> Header {
    let mut h = Header::default();
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let start = offset;
        offset += line.len();
        if t.is_empty() {
            continue;
        }
        if !t.starts_with("//") {
            break;
        }
        let body = t.trim_start_matches('/').trim();
        if !body.starts_with("--") {
            continue;
        }
        h.offset = Some(start);
        for flag in body.split_whitespace() {
            if let Some(d) = flag.strip_prefix("-D").filter(|d| !d.is_empty()) {
                h.defines.push(match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.to_string(), None),
                });
                continue;
            }
            let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
            match name {
                "--blockDim" | "--local_size" => h.block_dim = parse_dim(value),
                "--gridDim" | "--num_groups" => h.grid_dim = parse_dim(value),
                "--warp-sync" | "--warp_sync" => h.warp_sync = value.parse().ok().or(Some(32)),
                _ => h.unknown.push((start, flag.to_string())),
            }
        }
        break;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let h = parse_header("// comment\n//--blockDim=[16,16] --gridDim=64 --no-inline\n__global__");
        assert_eq!(h.block_dim, Some([16, 16, 1]));
        assert_eq!(h.grid_dim, Some([64, 1, 1]));
        assert_eq!(h.unknown.len(), 1);
        let h = parse_header("//--blockDim=256 --warp-sync=32\n");
        assert_eq!(h.block_dim, Some([256, 1, 1]));
        assert_eq!(h.warp_sync, Some(32));
        assert_eq!(parse_header("int x;\n//--blockDim=4").block_dim, None);
        assert_eq!(parse_dim("[0,1]"), None);
        let h = parse_header("//--blockDim=64 -DWIDTH=256 -DFAST\n");
        assert_eq!(
            h.defines,
            vec![("WIDTH".into(), Some("256".into())), ("FAST".into(), None)]
        );
        assert!(h.unknown.is_empty());
    }
}

//! The PTX text of an inline asm statement: its instructions (labels, directives, braces and
//! comments taken off) and what each one is to autosync. Every opcode falls in exactly one
//! class; an opcode on no list is [`Class::Unknown`], which the lowering never treats as
//! harmless.

/// A guard `@p` / `@!p` in front of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Guard {
    /// `@!p`.
    pub neg: bool,
    /// The predicate register (`p`, `%p1`, `%0`).
    pub reg: String,
}

/// One instruction of an asm template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Instr {
    /// Its guard, if predicated.
    pub guard: Option<Guard>,
    /// The opcode with its suffixes (`ld.shared::cta.v2.u32`).
    pub opcode: String,
    /// Operands split at top-level commas (`{..}` and `[..]` kept whole), trimmed.
    pub operands: Vec<String>,
    /// The instruction as written (for messages).
    pub text: String,
    /// The labels in front of it.
    pub labels: Vec<String>,
}

/// What an instruction is to autosync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// `bar`/`barrier` (not the cluster and warp forms): a CTA barrier.
    Barrier,
    /// `bar.warp.sync`: `__syncwarp`.
    WarpSync,
    /// `ld`/`ldu`/`st`/`atom`/`red`: an access of memory.
    Memory,
    /// `prefetch`/`prefetchu`: moves data between caches, no value changes.
    Prefetch,
    /// `exit`/`trap`/`brkpt`: the thread's path ends.
    PathEnd,
    /// `bra`/`brx.idx`/`call`/`ret`: control flow inside the asm.
    Branch,
    /// `membar`/`fence`/`griddepcontrol`: orders memory, synchronizes no two threads of a block.
    Order,
    /// A computation on registers (outputs are unknown unless modelled).
    Value,
    /// `ldmatrix`/`stmatrix`: a warp-collective access of matrix rows in shared memory.
    Matrix,
    /// Asynchronous copies, mbarriers, cluster barriers and stores, async tensor-core
    /// operations: the async-pipeline model.
    Async,
    /// Touches memory in a way not modelled (`wmma` loads and stores, textures, surfaces,
    /// multimem, cache discards, ...).
    Unmodelled,
    /// Not a PTX instruction autosync knows.
    Unknown,
}

/// Removes `//` and `/* */` comments.
fn strip_comments(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map(|i| &r[i..]).unwrap_or("");
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map(|i| &r[i + 2..]).unwrap_or("");
            out.push(' ');
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A label at the start of `s` (`L1:`, `LAB_WAIT%=:`), returning the rest. `a::b` is not a label.
fn peel_label(s: &str) -> Option<&str> {
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '=')))
        .map(|(i, _)| i)?;
    if end == 0 {
        return None;
    }
    let after = &s[end..];
    let r = after.strip_prefix(':')?;
    (!r.starts_with(':')).then_some(r)
}

/// Splits at top-level commas (outside `{}`, `[]`, `()`).
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in s.chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The instructions of an asm template, in order.
pub(crate) fn instructions(template: &str) -> Vec<Instr> {
    let text = strip_comments(template);
    let mut out = Vec::new();
    for piece in text.split(';') {
        let mut s = piece.trim();
        let mut labels = vec![];
        // Scope braces, labels (possibly several) in front of the instruction.
        loop {
            if let Some(r) = s.strip_prefix(['{', '}']) {
                s = r.trim_start();
            } else if let Some(r) = peel_label(s) {
                labels.push(s[..s.len() - r.len() - 1].trim().to_string());
                s = r.trim_start();
            } else {
                break;
            }
        }
        let s = s.trim_end_matches(['{', '}', ' ', '\t', '\n', '\r']).trim();
        // Directives declare registers (`.reg .pred p`) and do nothing; labels with nothing
        // after them mark the end.
        if s.is_empty() || s.starts_with('.') {
            if !labels.is_empty() {
                out.push(Instr {
                    guard: None,
                    opcode: String::new(),
                    operands: vec![],
                    text: String::new(),
                    labels,
                });
            }
            continue;
        }
        let (guard, rest) = match s.strip_prefix('@') {
            Some(g) => {
                let (reg, rest) = g.split_once(char::is_whitespace).unwrap_or((g, ""));
                let (neg, reg) = match reg.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, reg),
                };
                (
                    Some(Guard {
                        neg,
                        reg: reg.to_string(),
                    }),
                    rest.trim(),
                )
            }
            None => (None, s),
        };
        let (opcode, ops) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        out.push(Instr {
            guard,
            opcode: opcode.to_string(),
            operands: split_operands(ops),
            text: s.split_whitespace().collect::<Vec<_>>().join(" "),
            labels,
        });
    }
    out
}

/// The class of an opcode.
pub(crate) fn classify(opcode: &str) -> Class {
    let mut segs = opcode.split('.');
    let first = segs.next().unwrap_or("");
    let second = segs.next().unwrap_or("");
    match first {
        // A label with no instruction after it.
        "" => Class::Order,
        "bar" | "barrier" => match second {
            "warp" => Class::WarpSync,
            "cluster" => Class::Async,
            _ => Class::Barrier,
        },
        "ld" | "ldu" | "st" | "atom" | "red" => {
            if opcode.contains(".async") || second == "bulk" {
                Class::Async
            } else {
                Class::Memory
            }
        }
        "prefetch" | "prefetchu" => Class::Prefetch,
        "exit" | "trap" | "brkpt" => Class::PathEnd,
        "bra" | "brx" | "call" | "ret" => Class::Branch,
        // `griddepcontrol` orders this grid against the grids it depends on, not threads of
        // one block.
        // The fences that publish an mbarrier's initialization or order the async proxy are
        // recorded with the async pipeline.
        "fence" if second == "mbarrier_init" || (second == "proxy" && opcode.split('.').nth(2) == Some("async")) => {
            Class::Async
        }
        "membar" | "fence" | "griddepcontrol" => Class::Order,
        "cp" | "mbarrier" | "wgmma" | "tcgen05" | "tensormap" | "clusterlaunchcontrol" => Class::Async,
        "wmma" if second == "mma" => Class::Value,
        "ldmatrix" | "stmatrix" => Class::Matrix,
        "wmma" | "tex" | "tld4" | "suld" | "sust" | "sured" | "multimem" | "discard" | "applypriority" => {
            Class::Unmodelled
        }
        _ if is_value_op(first) => Class::Value,
        _ => Class::Unknown,
    }
}

/// Opcodes (first segment) that compute on registers only: arithmetic, logic, comparisons,
/// conversions, address arithmetic, warp-collective exchanges and votes (which, like their
/// CUDA intrinsics, order no memory), register-only matrix products, and a few that only
/// affect scheduling (`nanosleep`, `pmevent`, `setmaxnreg`).
fn is_value_op(first: &str) -> bool {
    matches!(
        first,
        "add"
            | "sub"
            | "mul"
            | "mad"
            | "mul24"
            | "mad24"
            | "sad"
            | "div"
            | "rem"
            | "abs"
            | "neg"
            | "min"
            | "max"
            | "popc"
            | "clz"
            | "bfind"
            | "fns"
            | "brev"
            | "bfe"
            | "bfi"
            | "szext"
            | "bmsk"
            | "dp4a"
            | "dp2a"
            | "addc"
            | "subc"
            | "madc"
            | "testp"
            | "copysign"
            | "fma"
            | "rcp"
            | "sqrt"
            | "rsqrt"
            | "sin"
            | "cos"
            | "lg2"
            | "ex2"
            | "tanh"
            | "set"
            | "setp"
            | "selp"
            | "slct"
            | "and"
            | "or"
            | "xor"
            | "not"
            | "cnot"
            | "lop3"
            | "shf"
            | "shl"
            | "shr"
            | "mov"
            | "prmt"
            | "cvt"
            | "cvta"
            | "isspacep"
            | "mapa"
            | "getctarank"
            | "createpolicy"
            | "shfl"
            | "vote"
            | "match"
            | "activemask"
            | "redux"
            | "elect"
            | "mma"
            | "movmatrix"
            | "txq"
            | "suq"
            | "istypep"
            | "nanosleep"
            | "pmevent"
            | "setmaxnreg"
            | "vadd"
            | "vsub"
            | "vabsdiff"
            | "vmin"
            | "vmax"
            | "vshl"
            | "vshr"
            | "vmad"
            | "vset"
            | "vadd2"
            | "vsub2"
            | "vavrg2"
            | "vabsdiff2"
            | "vmin2"
            | "vmax2"
            | "vset2"
            | "vadd4"
            | "vsub4"
            | "vavrg4"
            | "vabsdiff4"
            | "vmin4"
            | "vmax4"
            | "vset4"
    )
}

/// Bytes of one element of a PTX type suffix (`b32` 4, `v`-less; `f16x2` 4, `b128` 16, `e4m3x2` 2).
pub(crate) fn type_bytes(seg: &str) -> Option<u32> {
    let body = match seg {
        s if s.starts_with("bf16") => &s[2..],
        s if s.starts_with("tf32") => "32",
        s if s.starts_with("e4m3") || s.starts_with("e5m2") => {
            let n: u32 = s.get(5..).and_then(|n| n.parse().ok()).unwrap_or(1);
            return Some(n);
        }
        s => s.strip_prefix(['b', 'u', 's', 'f'])?,
    };
    let (bits, times) = match body.split_once('x') {
        Some((b, t)) => (b.parse::<u32>().ok()?, t.parse::<u32>().ok()?),
        None => (body.parse::<u32>().ok()?, 1),
    };
    matches!(bits, 8 | 16 | 32 | 64 | 128).then(|| bits / 8 * times)
}

/// The state space named in a memory opcode's suffixes, if any (`shared::cta` is `shared`).
pub(crate) fn state_space(opcode: &str) -> Option<&str> {
    opcode.split('.').find_map(|s| match s {
        "global" | "local" | "param" | "const" | "shared::cluster" => Some(s),
        "shared" | "shared::cta" => Some("shared"),
        _ => None,
    })
}

/// The special register a `%%name` / `%name` operand reads, if it is one.
pub(crate) fn special_register(op: &str) -> Option<&str> {
    let name = op.trim_start_matches('%');
    let base = name.split('.').next().unwrap_or(name);
    let known = matches!(
        base,
        "tid"
            | "ntid"
            | "ctaid"
            | "nctaid"
            | "laneid"
            | "warpid"
            | "nwarpid"
            | "smid"
            | "nsmid"
            | "gridid"
            | "clock"
            | "clock_hi"
            | "clock64"
            | "globaltimer"
            | "globaltimer_lo"
            | "globaltimer_hi"
            | "lanemask_eq"
            | "lanemask_le"
            | "lanemask_lt"
            | "lanemask_ge"
            | "lanemask_gt"
            | "dynamic_smem_size"
            | "total_smem_size"
            | "aggr_smem_size"
            | "reserved_smem_offset_begin"
            | "reserved_smem_offset_end"
            | "reserved_smem_offset_cap"
            | "is_explicit_cluster"
            | "clusterid"
            | "nclusterid"
            | "cluster_ctaid"
            | "cluster_nctaid"
            | "cluster_ctarank"
            | "cluster_nctarank"
            | "current_graph_exec"
    ) || base.starts_with("envreg")
        || base.starts_with("pm");
    (op.starts_with('%') && !op[1..].starts_with(|c: char| c.is_ascii_digit()) && known).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_instructions() {
        let t = "{\n .reg .pred P1;\n LAB_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1; // spin\n @P1 bra DONE;\n bra LAB_WAIT;\n DONE:\n }\n";
        let is = instructions(t);
        let ops: Vec<&str> = is.iter().map(|i| i.opcode.as_str()).collect();
        assert_eq!(ops, ["mbarrier.try_wait.parity.shared::cta.b64", "bra", "bra", ""]);
        assert_eq!(is[0].labels, ["LAB_WAIT"]);
        assert_eq!(is[3].labels, ["DONE"]);
        assert_eq!(is[0].operands, ["P1", "[%0]", "%1"]);
        assert_eq!(
            is[1].guard,
            Some(Guard {
                neg: false,
                reg: "P1".into()
            })
        );
        // `mbarrier.init.shared:` is not a label.
        let is = instructions("mbarrier.init.shared::cta.b64 [%0], %1;");
        assert_eq!(is.len(), 1);
        assert_eq!(is[0].opcode, "mbarrier.init.shared::cta.b64");
        let is = instructions("ld.global.v4.u32 {%0, %1,\n %2, %3}, [%4+16];");
        assert_eq!(is[0].operands, ["{%0, %1,\n %2, %3}", "[%4+16]"]);
        let is = instructions("@!%p2 exit; /* c */ L1%=: trap;");
        assert_eq!(is.len(), 2);
        assert!(is[0].guard.as_ref().unwrap().neg);
        assert_eq!(is[1].opcode, "trap");
    }

    #[test]
    fn classifies_opcodes() {
        assert_eq!(classify("bar.sync"), Class::Barrier);
        assert_eq!(classify("barrier.cta.arrive.aligned"), Class::Barrier);
        assert_eq!(classify("bar.warp.sync"), Class::WarpSync);
        assert_eq!(classify("barrier.cluster.arrive"), Class::Async);
        assert_eq!(classify("ld.shared::cta.u32"), Class::Memory);
        assert_eq!(classify("st.async.shared::cluster.b32"), Class::Async);
        assert_eq!(classify("red.async.relaxed.cluster.s32"), Class::Async);
        assert_eq!(classify("cp.async.ca.shared.global"), Class::Async);
        assert_eq!(classify("mbarrier.arrive.shared.b64"), Class::Async);
        assert_eq!(classify("fence.proxy.async.shared::cta"), Class::Async);
        assert_eq!(classify("fence.acq_rel.gpu"), Class::Order);
        assert_eq!(classify("brkpt"), Class::PathEnd);
        assert_eq!(classify("shfl.sync.bfly.b32"), Class::Value);
        assert_eq!(classify("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), Class::Matrix);
        assert_eq!(classify("frobnicate.u32"), Class::Unknown);
    }

    #[test]
    fn widths_spaces_and_special_registers() {
        assert_eq!(type_bytes("b32"), Some(4));
        assert_eq!(type_bytes("f16x2"), Some(4));
        assert_eq!(type_bytes("bf16"), Some(2));
        assert_eq!(type_bytes("b128"), Some(16));
        assert_eq!(type_bytes("e4m3x2"), Some(2));
        assert_eq!(type_bytes("shared"), None);
        assert_eq!(type_bytes("v4"), None);
        assert_eq!(state_space("ld.shared::cta.u32"), Some("shared"));
        assert_eq!(state_space("st.shared::cluster.u32"), Some("shared::cluster"));
        assert_eq!(state_space("atom.relaxed.cluster.global.add.u32"), Some("global"));
        assert_eq!(state_space("ld.u32"), None);
        assert_eq!(special_register("%%laneid"), Some("laneid"));
        assert_eq!(special_register("%tid.x"), Some("tid.x"));
        assert_eq!(special_register("%1"), None);
        assert_eq!(special_register("%r1"), None);
    }
}

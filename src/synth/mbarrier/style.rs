//! How inserted mbarrier operations are written, in the file's own style: a call of the file's
//! own `__device__` helper (`mbar_arrive(&empty[s]);`, `mbar_wait(&full[s], phase);`), else
//! Clang's builtin for an arrive where the file uses the builtins, else inline PTX with the
//! file's way of turning the barrier pointer into a shared-memory address (a `try_wait.parity`
//! retry loop for a wait: Clang has no parity-wait builtin).

use super::text::{matching, split_top};

/// A `__device__` function of the file wrapping one mbarrier operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Helper {
    /// Its name.
    pub name: String,
    /// Number of parameters.
    pub arity: usize,
    /// The parameter taking the barrier pointer.
    pub bar_arg: usize,
}

/// How the file's inline PTX addresses an mbarrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptx {
    /// The operand constraint (`r` for a 32-bit shared address).
    pub constraint: String,
    /// Text before the pointer in the operand (`smem(`).
    pub before: String,
    /// Text after it (`)`).
    pub after: String,
    /// The state space suffix of the opcodes (`.shared::cta`).
    pub space: String,
}

impl Default for Ptx {
    fn default() -> Self {
        Ptx {
            constraint: "r".into(),
            before: "(unsigned)__cvta_generic_to_shared(".into(),
            after: ")".into(),
            space: ".shared::cta".into(),
        }
    }
}

/// The writers of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MbarStyle {
    /// The file's arrive helper (one barrier parameter; a plain arrive, no transaction bytes).
    pub arrive: Option<Helper>,
    /// The file's parity-wait helper (a barrier and a parity parameter).
    pub wait: Option<Helper>,
    /// The file uses Clang's `__nvvm_mbarrier_*` builtins (an arrive is written with theirs).
    pub builtins: bool,
    /// Its inline PTX form.
    pub ptx: Ptx,
}

impl MbarStyle {
    /// The style of `text` (the main file) for a kernel starting at byte `kernel_at`: only
    /// helpers defined before it count; one the kernel calls is preferred.
    pub fn of(text: &str, kernel_at: usize) -> MbarStyle {
        let defs: Vec<Def> = functions(&text[..kernel_at.min(text.len())]);
        let kernel = &text[kernel_at.min(text.len())..];
        let pick = |want: &dyn Fn(&Def) -> bool| -> Option<Helper> {
            let mut of_kind = defs.iter().filter(|d| want(d));
            let called = defs
                .iter()
                .filter(|d| want(d))
                .find(|d| kernel.contains(&format!("{}(", d.name)));
            called.or_else(|| of_kind.next()).map(Def::helper)
        };
        MbarStyle {
            arrive: pick(&Def::is_arrive),
            wait: pick(&Def::is_wait),
            builtins: text.contains("__nvvm_mbarrier_"),
            ptx: ptx_form(text).unwrap_or_default(),
        }
    }

    /// The statement arriving once on `bar` (an operand such as `&empty[s]`).
    pub fn arrive(&self, bar: &str) -> String {
        if let Some(h) = &self.arrive {
            return h.call(bar, None);
        }
        if self.builtins {
            return format!("(void)__nvvm_mbarrier_arrive({bar});");
        }
        let p = &self.ptx;
        format!(
            "asm volatile(\"mbarrier.arrive{}.b64 _, [%0];\" :: \"{}\"({}{bar}{}) : \"memory\");",
            p.space, p.constraint, p.before, p.after
        )
    }

    /// The statement waiting on `bar` until the phase of parity `parity` completed.
    pub fn wait(&self, bar: &str, parity: &str) -> String {
        if let Some(h) = &self.wait {
            return h.call(bar, Some(parity));
        }
        let p = &self.ptx;
        format!(
            "asm volatile(\"{{\\n .reg .pred P;\\nAUTOSYNC_WAIT:\\n mbarrier.try_wait.parity{}.b64 P, [%0], %1;\\n @!P bra AUTOSYNC_WAIT;\\n}}\" :: \"{}\"({}{bar}{}), \"r\"({parity}) : \"memory\");",
            p.space, p.constraint, p.before, p.after
        )
    }
}

impl Helper {
    /// The call with the barrier operand and, for a wait, the parity.
    fn call(&self, bar: &str, parity: Option<&str>) -> String {
        let mut args = vec![parity.unwrap_or_default().to_string(); self.arity];
        args[self.bar_arg] = bar.to_string();
        format!("{}({});", self.name, args.join(", "))
    }
}

/// A function definition found in the text.
struct Def {
    name: String,
    params: Vec<String>,
    body: String,
}

impl Def {
    fn helper(&self) -> Helper {
        Helper {
            name: self.name.clone(),
            arity: self.params.len(),
            bar_arg: self.params.iter().position(|p| p.contains('*')).unwrap_or(0),
        }
    }

    /// One mbarrier asm statement or builtin call in the body.
    fn one_op(&self) -> bool {
        self.body.matches("asm").count() + self.body.matches("__nvvm_mbarrier").count() == 1
    }

    fn pointers(&self) -> usize {
        self.params.iter().filter(|p| p.contains('*')).count()
    }

    fn is_arrive(&self) -> bool {
        let b = &self.body;
        (b.contains("mbarrier.arrive.") || b.contains("__nvvm_mbarrier_arrive("))
            && !b.contains("expect_tx")
            && self.one_op()
            && self.params.len() == 1
            && self.pointers() == 1
    }

    fn is_wait(&self) -> bool {
        self.body.contains("try_wait.parity") && self.one_op() && self.params.len() == 2 && self.pointers() == 1
    }
}

/// The `__device__` function definitions of `text`.
fn functions(text: &str) -> Vec<Def> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("__device__").map(|i| i + from) {
        from = i + "__device__".len();
        let Some(open) = text[from..].find('(').map(|j| j + from) else {
            break;
        };
        let head = &text[from..open];
        if head.contains([';', '{', '}', '=']) {
            continue;
        }
        let name: String = head
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let Some(close) = matching(text, open) else { break };
        let rest = text[close + 1..].trim_start();
        if name.is_empty() || !rest.starts_with('{') {
            continue;
        }
        let body_at = text.len() - rest.len();
        let Some(end) = matching(text, body_at) else { break };
        out.push(Def {
            name,
            params: split_top(&text[open + 1..close]),
            body: text[body_at..=end].to_string(),
        });
        from = end;
    }
    out
}

/// The operand form of the first mbarrier asm statement in `text` with a `[%N]` operand.
fn ptx_form(text: &str) -> Option<Ptx> {
    let mut from = 0;
    while let Some(i) = text[from..].find("asm").map(|i| i + from) {
        from = i + 3;
        let Some(open) = text[from..].find('(').map(|j| j + from) else {
            break;
        };
        let Some(close) = matching(text, open) else { break };
        if let Some(p) = operand_form(&text[open + 1..close]) {
            return Some(p);
        }
    }
    None
}

/// The barrier operand of one asm statement's inside (`"template" :: inputs : clobbers`).
fn operand_form(asm: &str) -> Option<Ptx> {
    let sections = colon_sections(asm);
    let template = sections.first()?;
    let at = template.find("mbarrier.")?;
    let opcode: String = template[at..].chars().take_while(|c| !c.is_whitespace()).collect();
    let space = if opcode.contains(".shared::cta") {
        ".shared::cta"
    } else if opcode.contains(".shared") {
        ".shared"
    } else {
        return None;
    };
    let n: usize = template.split("[%").nth(1)?.split(']').next()?.parse().ok()?;
    let outputs = sections.get(1).map_or(0, |o| split_top(o).len());
    let operand = split_top(sections.get(2)?).into_iter().nth(n.checked_sub(outputs)?)?;
    let (constraint, expr) = operand.split_once('(')?;
    let expr = expr.strip_suffix(')')?;
    let open = last_call_paren(expr)?;
    let close = matching(expr, open)?;
    Some(Ptx {
        constraint: constraint.trim().trim_matches('"').to_string(),
        before: expr[..=open].to_string(),
        after: expr[close..].to_string(),
        space: space.into(),
    })
}

/// `asm`'s inside split at the colons outside string literals and parentheses.
fn colon_sections(asm: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut from) = (0i32, false, false, 0);
    for (i, c) in asm.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ':' if !quoted && depth == 0 => {
                out.push(&asm[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&asm[from..]);
    out
}

/// The `(` of the last call in `expr` (an identifier before it), whose argument is the pointer.
fn last_call_paren(expr: &str) -> Option<usize> {
    expr.char_indices()
        .filter(|&(i, c)| {
            c == '('
                && expr[..i]
                    .trim_end()
                    .ends_with(|c: char| c.is_alphanumeric() || c == '_')
        })
        .map(|(i, _)| i)
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RING: &str = r#"
__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ void mbar_expect_arrive(unsigned long long *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(bar)), "r"(bytes) : "memory");
}
__device__ void mbar_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(bar)) : "memory");
}
__device__ void mbar_wait(unsigned phase, unsigned long long *bar)
{
    asm volatile("{\n .reg .pred P;\nWAIT:\n mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1;\n @P bra DONE;\n bra WAIT;\nDONE:\n}" :: "r"(smem(bar)), "r"(phase) : "memory");
}
__global__ void k() {}
"#;

    #[test]
    fn helpers_are_called_with_their_own_argument_order() {
        let s = MbarStyle::of(RING, RING.find("__global__").unwrap());
        assert_eq!(s.arrive("&empty[s]"), "mbar_arrive(&empty[s]);");
        assert_eq!(s.wait("&full[s]", "phase"), "mbar_wait(phase, &full[s]);");
        assert_eq!(s.ptx.before, "smem(");
        // Helpers defined after the kernel cannot be called from it.
        assert_eq!(MbarStyle::of(RING, 0).arrive, None);
    }

    #[test]
    fn without_helpers_ptx_uses_the_files_address_form() {
        let text = r#"__global__ void k() {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr(&full[st])), "r"(1) : "memory");
}"#;
        let s = MbarStyle::of(text, 0);
        assert_eq!(
            s.arrive("&empty[st]"),
            r#"asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr(&empty[st])) : "memory");"#
        );
        assert!(s
            .wait("&full[st]", "p")
            .contains(r#":: "r"(addr(&full[st])), "r"(p) : "memory");"#));
        let b = MbarStyle::of("__global__ void k() { __nvvm_mbarrier_arrive(&bar); }", 0);
        assert_eq!(b.arrive("&bar"), "(void)__nvvm_mbarrier_arrive(&bar);");
    }
}

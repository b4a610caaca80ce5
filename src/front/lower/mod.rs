//! Lowering from the tree-sitter-cuda syntax tree to the kernel IR.
//!
//! One [`Lowerer`] walks one kernel. Expressions are lowered to pure IR expressions plus the
//! memory operations they perform, which are collected into the current source statement's
//! `Basic` statement; control flow inside expressions (short-circuit operators and ternaries that
//! guard memory accesses) becomes synthetic `if` statements that are not barrier positions.

mod calls;
mod decl;
mod expr;
pub mod helpers;
mod stmt;

use super::ctype::{CType, Layouts};
use super::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

/// Maps a byte range of the preprocessed text to a span in the original files.
pub type SpanMap<'a> = &'a dyn Fn(usize, usize) -> Span;

/// Values of template parameters and other compile-time names given by the user.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// `--define NAME=V` values for template non-type parameters.
    pub defines: BTreeMap<String, i64>,
}

/// What a name means in the kernel being lowered.
#[derive(Clone, Debug)]
pub(crate) enum Binding {
    /// A scalar variable.
    Var(VarId, CType),
    /// An array object (its full type, e.g. `float[64][65]`).
    Array(ArrayId, CType),
    /// A pointer into an array; its byte offset lives in a variable (or is a fixed expression).
    Ptr {
        array: ArrayId,
        off: PtrOff,
        pointee: CType,
    },
    /// A pointer that does not (yet) point into a known array.
    NullPtr(CType),
    /// A local struct object: fields become variables.
    Obj(String, HashMap<String, Binding>),
    /// A compile-time constant.
    Const(i64, CType),
    /// A cooperative-groups group handle (`thread_block`, tile of a block).
    Group(GroupKind),
    /// A reference to a memory location (`T& x = s[i]`).
    Ref(Place),
}

/// Cooperative-groups handles: sync() on them is a barrier of that scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupKind {
    Block,
    Warp,
}

/// The byte offset of a pointer.
#[derive(Clone, Debug)]
pub(crate) enum PtrOff {
    Var(VarId),
    Fixed(Expr),
}

impl PtrOff {
    fn expr(&self) -> Expr {
        match self {
            PtrOff::Var(v) => Expr::Var(*v),
            PtrOff::Fixed(e) => e.clone(),
        }
    }
}

/// A memory location.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    pub array: ArrayId,
    pub off: Expr,
    pub ty: CType,
    pub span: Span,
}

/// The result of lowering an expression.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// A pure scalar value.
    Scalar(Expr, CType),
    /// A memory location (not yet read).
    Mem(Place),
    /// An assignable scalar variable.
    VarRef(VarId, CType),
    /// A pointer value into an array.
    Ptr(ArrayId, Expr, CType),
    /// A named pointer variable (assignable).
    PtrVar(String),
    /// A local struct object.
    Obj(String, HashMap<String, Binding>),
    /// A cooperative-groups handle.
    Group(GroupKind),
    /// A null/unknown pointer of the given pointee type.
    NullPtr(CType),
    /// No value.
    Void,
}

/// A `__device__` function or method available for inlining.
#[derive(Clone, Copy)]
pub(crate) struct FuncDef<'t> {
    pub node: Node<'t>,
    /// Template parameter list, if any.
    pub template: Option<Node<'t>>,
    /// The struct this is a method of.
    #[allow(dead_code)]
    pub owner: Option<&'t str>,
}

/// State of an inlined call: where `return` goes.
#[derive(Clone, Debug)]
pub(crate) struct InlineFrame {
    pub result: Option<(VarId, CType)>,
    pub ptr_result: Option<String>,
    pub name: String,
    #[allow(dead_code)]
    pub call_span: Span,
    /// Loop nesting depth at the call (a `return` inside a loop of the callee is unsupported).
    pub loop_depth: u32,
}

/// Translation-unit-wide facts shared by the kernels of one file.
pub struct Unit<'t> {
    pub(crate) src: &'t str,
    pub(crate) map: SpanMap<'t>,
    pub(crate) layouts: Layouts,
    pub(crate) funcs: HashMap<String, Vec<FuncDef<'t>>>,
    pub(crate) struct_methods: HashMap<String, Vec<FuncDef<'t>>>,
    pub(crate) file_scope: Vec<Node<'t>>,
    pub(crate) instantiations: HashMap<String, Node<'t>>,
    pub(crate) typedefs: HashMap<String, CType>,
    pub(crate) namespaces_cg: Vec<String>,
}

/// Lowers one kernel.
pub struct Lowerer<'u, 't> {
    pub(crate) u: &'u Unit<'t>,
    pub(crate) opts: &'u LowerOptions,
    pub(crate) vars: Vec<Var>,
    pub(crate) arrays: Vec<Array>,
    pub(crate) next_label: u32,
    pub(crate) scopes: Vec<HashMap<String, Binding>>,
    /// Statement lists under construction (innermost last).
    pub(crate) blocks: Vec<Vec<Stmt>>,
    /// Operations of the statement under construction.
    pub(crate) ops: Vec<Op>,
    /// Span of the source statement under construction.
    pub(crate) stmt_span: Span,
    pub(crate) inline: Vec<InlineFrame>,
    pub(crate) type_params: HashMap<String, CType>,
    pub(crate) notes: Vec<(Span, String)>,
    pub(crate) file_arrays: HashMap<String, Binding>,
    /// Current loop nesting depth.
    pub(crate) loop_depth: u32,
    /// The array all `extern __shared__` declarations share.
    pub(crate) extern_shared: Option<ArrayId>,
}

impl<'t> Unit<'t> {
    /// Collects file-scope definitions (device functions, structs, instantiations).
    pub fn new(root: Node<'t>, src: &'t str, map: SpanMap<'t>) -> Unit<'t> {
        let mut u = Unit {
            src,
            map,
            layouts: Layouts::with_builtins(),
            funcs: HashMap::new(),
            struct_methods: HashMap::new(),
            file_scope: Vec::new(),
            instantiations: HashMap::new(),
            typedefs: HashMap::new(),
            namespaces_cg: vec!["cooperative_groups".into()],
        };
        u.collect(root, None);
        u
    }

    pub fn text(&self, n: Node) -> &'t str {
        &self.src[n.byte_range()]
    }

    pub fn span(&self, n: Node) -> Span {
        (self.map)(n.start_byte(), n.end_byte())
    }

    fn collect(&mut self, node: Node<'t>, template: Option<Node<'t>>) {
        let mut c = node.walk();
        for ch in node.named_children(&mut c).collect::<Vec<_>>() {
            match ch.kind() {
                "function_definition" => {
                    if let Some(name) = self.func_name(ch) {
                        self.funcs.entry(name).or_default().push(FuncDef {
                            node: ch,
                            template,
                            owner: None,
                        });
                    }
                }
                "template_declaration" => self.collect(ch, ch.child_by_field_name("parameters")),
                "namespace_definition" | "linkage_specification" | "declaration_list" => {
                    if let Some(b) = ch.child_by_field_name("body") {
                        self.collect(b, None)
                    } else {
                        self.collect(ch, None)
                    }
                }
                "struct_specifier" | "class_specifier" => self.collect_struct(ch, template),
                "declaration" => {
                    // `struct S {...};` at file scope, or file-scope arrays.
                    if let Some(t) = ch.child_by_field_name("type") {
                        if matches!(t.kind(), "struct_specifier" | "class_specifier") {
                            self.collect_struct(t, template);
                        }
                    }
                    if ch.child_by_field_name("declarator").is_some() {
                        self.file_scope.push(ch);
                    }
                }
                "type_definition" => self.file_scope.push(ch),
                "template_instantiation" => {
                    if let Some(d) = ch.child_by_field_name("declarator") {
                        if let Some(tf) = find_kind(d, "template_function") {
                            if let Some(n) = tf.child_by_field_name("name") {
                                self.instantiations.insert(self.text(n).to_string(), tf);
                            }
                        }
                    }
                }
                // `namespace cg = cooperative_groups;` and `using` aliases of it.
                "alias_declaration" | "using_declaration" | "namespace_alias_definition"
                    if self.text(ch).contains("cooperative_groups") =>
                {
                    if let Some(n) = ch.child_by_field_name("name") {
                        self.namespaces_cg.push(self.text(n).to_string());
                    }
                }
                _ => {}
            }
        }
    }

    fn collect_struct(&mut self, st: Node<'t>, template: Option<Node<'t>>) {
        let Some(name) = st.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name);
        let Some(body) = st.child_by_field_name("body") else {
            return;
        };
        let mut fields = Vec::new();
        let mut c = body.walk();
        for m in body.named_children(&mut c) {
            match m.kind() {
                "function_definition" => {
                    self.struct_methods.entry(name.to_string()).or_default().push(FuncDef {
                        node: m,
                        template,
                        owner: Some(name),
                    });
                }
                "template_declaration" => {
                    let mut c2 = m.walk();
                    for f in m.named_children(&mut c2) {
                        if f.kind() == "function_definition" {
                            self.struct_methods.entry(name.to_string()).or_default().push(FuncDef {
                                node: f,
                                template: m.child_by_field_name("parameters"),
                                owner: Some(name),
                            });
                        }
                    }
                }
                "field_declaration" => {
                    let Some(ty) = m.child_by_field_name("type") else {
                        continue;
                    };
                    let base = self.base_type_static(ty);
                    let mut c2 = m.walk();
                    for d in m.children_by_field_name("declarator", &mut c2) {
                        if let Some((n, t)) = self.declarator_static(d, base.clone()) {
                            if !matches!(t, CType::Void) {
                                fields.push((n, t));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.layouts.define(name, fields);
    }

    /// Name of a function definition (`k`, `operator float*` → `operator`).
    pub fn func_name(&self, f: Node) -> Option<String> {
        let mut d = f.child_by_field_name("declarator")?;
        loop {
            match d.kind() {
                "function_declarator" => d = d.child_by_field_name("declarator")?,
                "pointer_declarator" | "reference_declarator" => {
                    d = d.child_by_field_name("declarator").or_else(|| d.named_child(0))?
                }
                "identifier" | "field_identifier" => return Some(self.text(d).to_string()),
                "qualified_identifier" => return d.child_by_field_name("name").map(|n| self.text(n).to_string()),
                "template_function" => return d.child_by_field_name("name").map(|n| self.text(n).to_string()),
                "operator_cast" | "operator_name" => return Some("operator".into()),
                "destructor_name" => return None,
                _ => return None,
            }
        }
    }

    /// Whether a function definition is a `__global__` kernel.
    pub fn is_kernel(&self, f: Node) -> bool {
        let body_start = f
            .child_by_field_name("body")
            .map(|b| b.start_byte())
            .unwrap_or(f.end_byte());
        let head = &self.src[f.start_byte()..body_start];
        head.split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "__global__")
    }

    /// Base type of a type node without template-parameter context.
    pub(crate) fn base_type_static(&self, ty: Node) -> CType {
        let text = self.text(ty).trim();
        match ty.kind() {
            "primitive_type" => super::ctype::named_type(text).unwrap_or(CType::INT),
            "sized_type_specifier" => {
                let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let unsigned = t.contains("unsigned");
                let bits = if t.contains("long") {
                    64
                } else if t.contains("short") {
                    16
                } else if t.contains("char") {
                    8
                } else {
                    32
                };
                CType::Int {
                    bits,
                    signed: !unsigned,
                }
            }
            "type_identifier" => {
                if let Some(t) = super::ctype::named_type(text) {
                    t
                } else if let Some(t) = self.typedefs.get(text) {
                    t.clone()
                } else {
                    CType::Struct(text.to_string())
                }
            }
            "struct_specifier" | "class_specifier" => ty
                .child_by_field_name("name")
                .map(|n| CType::Struct(self.text(n).to_string()))
                .unwrap_or(CType::Struct("<anon>".into())),
            _ => CType::Struct(text.to_string()),
        }
    }

    /// Unwraps a declarator into (name, full type).
    pub(crate) fn declarator_static(&self, d: Node, base: CType) -> Option<(String, CType)> {
        match d.kind() {
            "identifier" | "field_identifier" => Some((self.text(d).to_string(), base)),
            "pointer_declarator" => {
                let inner = d.child_by_field_name("declarator")?;
                self.declarator_static(inner, CType::Ptr(Box::new(base)))
            }
            "reference_declarator" => {
                let inner = d.named_child((d.named_child_count() as u32).saturating_sub(1))?;
                self.declarator_static(inner, base)
            }
            "array_declarator" => {
                let inner = d.child_by_field_name("declarator")?;
                let size = d.child_by_field_name("size").and_then(|s| const_int(self.text(s)));
                // `int a[2][3]`: the outer declarator node holds the last extent.
                let (name, t) = self.declarator_static(inner, CType::Void)?;
                Some((
                    name,
                    rebuild_array(t, CType::Array(Box::new(base), size.map(|v| v as u64))),
                ))
            }
            "init_declarator" => self.declarator_static(d.child_by_field_name("declarator")?, base),
            "parenthesized_declarator" => self.declarator_static(d.named_child(0)?, base),
            _ => None,
        }
    }
}

/// Replaces the innermost `Void` placeholder of a partially built array type.
pub(crate) fn rebuild_array(t: CType, inner: CType) -> CType {
    match t {
        CType::Void => inner,
        CType::Array(e, n) => CType::Array(Box::new(rebuild_array(*e, inner)), n),
        CType::Ptr(e) => CType::Ptr(Box::new(rebuild_array(*e, inner))),
        other => other,
    }
}

/// Parses a C integer literal (`64`, `0x40`, `16u`, `1024L`).
pub(crate) fn const_int(s: &str) -> Option<i64> {
    let s = s.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if s.len() > 1 && s.starts_with('0') && s.chars().all(|c| c.is_ascii_digit()) {
        i64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}

/// First descendant (pre-order) of the given kind.
pub fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if n.kind() == kind {
        return Some(n);
    }
    let mut c = n.walk();
    for ch in n.named_children(&mut c) {
        if let Some(f) = find_kind(ch, kind) {
            return Some(f);
        }
    }
    None
}

impl<'u, 't> Lowerer<'u, 't> {
    pub fn new(u: &'u Unit<'t>, opts: &'u LowerOptions) -> Self {
        Lowerer {
            u,
            opts,
            vars: Vec::new(),
            arrays: Vec::new(),
            next_label: 0,
            scopes: vec![HashMap::new()],
            blocks: Vec::new(),
            ops: Vec::new(),
            stmt_span: Span::DUMMY,
            inline: Vec::new(),
            type_params: HashMap::new(),
            notes: Vec::new(),
            file_arrays: HashMap::new(),
            loop_depth: 0,
            extern_shared: None,
        }
    }

    pub fn span(&self, n: Node) -> Span {
        self.u.span(n)
    }
    pub fn text(&self, n: Node) -> &'t str {
        self.u.text(n)
    }
    pub(crate) fn label(&mut self) -> Label {
        let l = Label(self.next_label);
        self.next_label += 1;
        l
    }
    pub(crate) fn new_var(&mut self, name: &str, ty: ScalarTy, kind: VarKind) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Var {
            id,
            name: name.to_string(),
            ty,
            kind,
        });
        id
    }
    pub(crate) fn temp(&mut self, ty: ScalarTy) -> VarId {
        let n = format!("$t{}", self.vars.len());
        self.new_var(&n, ty, VarKind::Temp)
    }
    pub(crate) fn new_array(
        &mut self,
        name: &str,
        space: Space,
        elem: &CType,
        dims: Vec<Option<u64>>,
        span: Span,
    ) -> ArrayId {
        let id = ArrayId(self.arrays.len() as u32);
        let elem_size = self.u.layouts.size_of(elem) as u32;
        self.arrays.push(Array {
            id,
            name: name.to_string(),
            space,
            elem_size,
            dims,
            span,
        });
        id
    }
    pub(crate) fn bind(&mut self, name: &str, b: Binding) {
        self.scopes.last_mut().expect("scope").insert(name.to_string(), b);
    }
    pub(crate) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.file_arrays.get(name))
    }
    pub(crate) fn rebind(&mut self, name: &str, b: Binding) {
        for s in self.scopes.iter_mut().rev() {
            if let Some(slot) = s.get_mut(name) {
                *slot = b;
                return;
            }
        }
    }
    /// Whether code being lowered comes from an inlined function (no barrier positions there).
    pub(crate) fn in_inline(&self) -> bool {
        !self.inline.is_empty()
    }

    /// Ends the statement under construction: its ops become one `Basic` statement.
    pub(crate) fn flush(&mut self, emit_after: bool) {
        if self.ops.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.ops);
        let label = self.label();
        let stmt = Stmt {
            label,
            span: self.stmt_span,
            emit_after: emit_after && !self.in_inline(),
            kind: StmtKind::Basic(ops),
        };
        self.push(stmt);
    }

    pub(crate) fn push(&mut self, s: Stmt) {
        self.blocks.last_mut().expect("block").push(s);
    }

    /// Lowers a `__global__` function definition to a kernel.
    pub fn kernel(
        mut self,
        f: Node<'t>,
        template: Option<Node<'t>>,
        files: Vec<SourceFile>,
    ) -> FResult<(Kernel, Vec<(Span, String)>)> {
        let name = self.u.func_name(f).unwrap_or_default();
        if let Some(tp) = template {
            self.bind_template_params(tp, &name, self.span(f))?;
        }
        self.declare_file_scope()?;
        let decl = f
            .child_by_field_name("declarator")
            .ok_or_else(|| FrontError::input(self.span(f), "kernel without a declarator"))?;
        let fdecl = find_kind(decl, "function_declarator")
            .ok_or_else(|| FrontError::input(self.span(f), "kernel without a parameter list"))?;
        let body = f
            .child_by_field_name("body")
            .ok_or_else(|| FrontError::input(self.span(f), "kernel without a body"))?;
        self.blocks.push(Vec::new());
        if let Some(params) = fdecl.child_by_field_name("parameters") {
            self.kernel_params(params, body)?;
        }
        self.stmt_span = self.span(body);
        self.flush(false);
        let mut c = body.walk();
        for s in body.named_children(&mut c).collect::<Vec<_>>() {
            self.stmt(s)?;
        }
        let stmts = self.blocks.pop().unwrap_or_default();
        let blabel = self.label();
        let body_blk = Block {
            label: blabel,
            span: self.span(body),
            braced: true,
            emit_start: true,
            stmts,
        };
        let kernel = Kernel {
            name,
            files,
            span: self.span(f),
            vars: self.vars,
            arrays: self.arrays,
            body: body_blk,
            launch: LaunchConfig::default(),
            next_label: self.next_label,
        };
        Ok((kernel, self.notes))
    }
}

/// Parses a C integer literal (for callers outside the lowering).
pub fn const_int_pub(s: &str) -> Option<i64> {
    const_int(s)
}

/// Lowers every `__global__` function named in `kernel` (all when `None`).
pub use self::Lowerer as KernelLowerer;

//! Kernels: finding the `__global__` functions of the main file (every instantiation of a
//! kernel template), and lowering one to the IR.

use super::lowerer::Lowerer;
use super::source::SourceMap;
use super::types::TemplateArg;
use super::types::Types;
use super::values::*;
use crate::front::ast::{Ast, BinaryOp, NodeId, NodeKind, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use std::collections::HashMap;

/// A kernel to lower: a `__global__` function definition, or one instantiation of a template.
#[derive(Clone, Debug)]
pub struct KernelDef {
    /// The `FunctionDecl` node.
    pub node: NodeId,
    /// Its name.
    pub name: String,
    /// Template arguments as written for messages (`<256, true>`), empty for plain kernels.
    pub args: String,
    /// Lexical scope (namespace) for type lookups.
    pub scope: String,
    /// `__launch_bounds__` maximum threads per block, with the attribute's span.
    pub launch_bounds: Option<(u64, NodeId)>,
}

impl KernelDef {
    /// The name shown to users: `k` or `k<256, true>`.
    pub fn display_name(&self) -> String {
        format!("{}{}", self.name, self.args)
    }
}

/// A lowered kernel, its notes, and the arrays each pointer variable pointed into.
type Lowered = (LoweredKernel, Vec<Vec<ArrayId>>);

/// A lowered kernel with what its lowering found besides the IR.
pub struct LoweredKernel {
    /// The IR.
    pub kernel: Kernel,
    /// Notes for the user.
    pub notes: Vec<(Span, String)>,
    /// Hazards in its code (`Report::hazards`).
    pub hazards: Vec<autosync_oracle::report::Hazard>,
}

/// A kernel template the file never instantiates.
#[derive(Clone, Debug)]
pub struct Uninstantiated {
    /// The template's name.
    pub name: String,
    /// Qualified name (for the instantiation we add).
    pub qual: String,
    /// Template parameters: name, whether it is a type parameter, default argument text.
    pub params: Vec<(String, bool)>,
    /// The `FunctionTemplateDecl` node.
    pub node: NodeId,
}

/// The kernels defined in the user's files, in source order.
pub fn find(ast: &Ast, src: &SourceMap, types: &Types) -> (Vec<KernelDef>, Vec<Uninstantiated>) {
    let mut out = Vec::new();
    let mut templates = Vec::new();
    for &r in &ast.roots {
        walk(ast, src, types, r, &mut out, &mut templates);
    }
    out.sort_by_key(|k| ast.node(k.node).loc.map(|l| l.expansion.offset).unwrap_or(0));
    (out, templates)
}

/// Kernels of the main file and of the user headers it includes (their statements are not
/// barrier positions: emission only edits the main file).
fn in_user_file(ast: &Ast, src: &SourceMap, n: NodeId) -> bool {
    let _ = src;
    ast.node(n)
        .loc
        .is_some_and(|l| !ast.files[l.expansion.file.0 as usize].system)
}

fn is_kernel_def(ast: &Ast, n: NodeId) -> bool {
    ast.kind(n) == NodeKind::FunctionDecl
        && ast.has_attr(n, NodeKind::CUDAGlobalAttr)
        && ast.children(n).any(|c| ast.kind(c) == NodeKind::CompoundStmt)
}

fn walk(
    ast: &Ast,
    src: &SourceMap,
    types: &Types,
    n: NodeId,
    out: &mut Vec<KernelDef>,
    templates: &mut Vec<Uninstantiated>,
) {
    match ast.kind(n) {
        NodeKind::NamespaceDecl | NodeKind::LinkageSpecDecl | NodeKind::ExportDecl => {
            for c in ast.children(n).collect::<Vec<_>>() {
                walk(ast, src, types, c, out, templates);
            }
        }
        NodeKind::FunctionDecl if is_kernel_def(ast, n) && in_user_file(ast, src, n) => {
            out.push(def(ast, types, n, String::new()));
        }
        NodeKind::FunctionTemplateDecl if in_user_file(ast, src, n) => {
            let funcs: Vec<NodeId> = ast.children_of_kind(n, NodeKind::FunctionDecl).collect();
            let Some(&pattern) = funcs.first() else { return };
            if !ast.has_attr(pattern, NodeKind::CUDAGlobalAttr) {
                return;
            }
            let params: Vec<(String, bool, String)> = ast
                .children(n)
                .filter_map(|c| match ast.kind(c) {
                    NodeKind::TemplateTypeParmDecl => Some((ast.name(c).to_string(), true, String::new())),
                    NodeKind::NonTypeTemplateParmDecl => Some((
                        ast.name(c).to_string(),
                        false,
                        ast.node(c).ty.map(|t| ast.type_str(t).to_string()).unwrap_or_default(),
                    )),
                    _ => None,
                })
                .collect();
            let mut any = false;
            for &f in &funcs[1..] {
                if !is_kernel_def(ast, f) {
                    continue;
                }
                any = true;
                let mut args = Vec::new();
                types.template_args(f, &mut args);
                let shown: Vec<String> = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match a {
                        TemplateArg::Value(v) if params.get(i).is_some_and(|p| p.2 == "bool") => {
                            (if *v != 0 { "true" } else { "false" }).to_string()
                        }
                        TemplateArg::Value(v) => v.to_string(),
                        TemplateArg::Type(t) => t.clone(),
                    })
                    .collect();
                out.push(def(ast, types, f, format!("<{}>", shown.join(", "))));
            }
            if !any && is_kernel_def(ast, pattern) {
                templates.push(Uninstantiated {
                    name: ast.name(n).to_string(),
                    qual: ast.qual_name(ast.node(n).id).unwrap_or(ast.name(n)).to_string(),
                    params: params.into_iter().map(|(n, t, _)| (n, t)).collect(),
                    node: n,
                });
            }
        }
        _ => {}
    }
}

fn def(ast: &Ast, types: &Types, n: NodeId, args: String) -> KernelDef {
    let launch_bounds = ast
        .children_of_kind(n, NodeKind::CUDALaunchBoundsAttr)
        .next()
        .and_then(|a| {
            let first = ast.children(a).next()?;
            Some((u64::try_from(types.attr_value(first)?).ok()?, a))
        });
    KernelDef {
        node: n,
        name: ast.name(n).to_string(),
        args,
        scope: types.scope_of(ast.node(n).id),
        launch_bounds,
    }
}

impl<'a> Lowerer<'a> {
    /// Lowers a kernel definition. A pointer variable given several arrays (swapped buffers)
    /// is only known to be one after the code that swaps it was lowered: the kernel is lowered
    /// again with that knowledge until no pointer gains an array (each pass only adds).
    pub fn kernel(self, k: &KernelDef) -> FResult<LoweredKernel> {
        let (ast, types, src, opts, scope) = (self.ast, self.types, self.src, self.opts, self.kernel_scope.clone());
        let mut lw = self;
        for _ in 0..8 {
            let seeds = lw.seeds.clone();
            let (lowered, found) = lw.kernel_once(k)?;
            let grew = found
                .iter()
                .enumerate()
                .any(|(i, f)| f.len() > 1 && seeds.get(i).is_none_or(|s| f.iter().any(|a| !s.contains(a))));
            if !grew {
                return Ok(lowered);
            }
            lw = Lowerer::new(ast, types, src, opts, scope.clone()).with_seeds(found);
        }
        Err(FrontError::unsupported(
            self_span(ast, src, k),
            "pointers swapped between too many arrays",
        ))
    }

    fn kernel_once(mut self, k: &KernelDef) -> FResult<Lowered> {
        let ast = self.ast;
        let f = k.node;
        self.kernel_fn = ast.node(f).id;
        let body = ast
            .children_of_kind(f, NodeKind::CompoundStmt)
            .last()
            .ok_or_else(|| FrontError::input(self.span(f), "kernel without a body"))?;
        self.blocks.push(Vec::new());
        self.scan_addressed(body);
        let assigned = assigned_params(ast, body);
        for p in ast.children_of_kind(f, NodeKind::ParmVarDecl).collect::<Vec<_>>() {
            self.kernel_param(p, assigned.contains(&ast.node(p).id))?;
        }
        self.stmt_span = self.src.node_span(body);
        self.flush(false);
        // The file's `__axiom`s hold for every thread from the start.
        self.file_axioms()?;
        self.cur_writable = true;
        self.compound(body)?;
        self.flush(true);
        self.check_number_origins()?;
        let mut stmts = self.blocks.pop().unwrap_or_default();
        if !self.late_inits.is_empty() {
            // Pointers first assigned under a condition: their starting offsets, at entry.
            let inits = std::mem::take(&mut self.late_inits);
            let label = self.label();
            stmts.insert(
                0,
                Stmt {
                    label,
                    span: self.src.node_span(body),
                    emit_after: false,
                    kind: StmtKind::Basic(inits),
                },
            );
        }
        // What the arrays' addresses, used as numbers, are known to be: from the start.
        for fact in std::mem::take(&mut self.address_facts) {
            let label = self.label();
            stmts.insert(
                0,
                Stmt {
                    label,
                    span: self.src.node_span(body),
                    emit_after: false,
                    kind: StmtKind::Assume(fact),
                },
            );
        }
        let blabel = self.label();
        let body_span = self.src.node_span(body);
        let body_blk = Block {
            label: blabel,
            span: body_span,
            braced: true,
            emit_start: body_span.file == FileId(0) && !body_span.is_dummy(),
            stmts,
        };
        nested_grid_sync(&body_blk)?;
        let found = self.final_seeds();
        let kernel = Kernel {
            name: k.display_name(),
            files: Vec::new(),
            span: self.src.node_span(f),
            vars: self.vars,
            arrays: self.arrays,
            body: body_blk,
            launch: LaunchConfig::default(),
            next_label: self.next_label,
        };
        let lowered = LoweredKernel {
            kernel,
            notes: self.notes,
            hazards: self.hazards,
        };
        Ok((lowered, found))
    }

    /// Binds a kernel parameter: scalars are symbolic parameters, pointers are global arrays,
    /// structs hold both.
    fn kernel_param(&mut self, p: NodeId, assigned: bool) -> FResult<()> {
        let ast = self.ast;
        let name = ast.name(p).to_string();
        let span = self.span(p);
        let t = self.type_of(p);
        let id = ast.node(p).id;
        let b = if self.addressed.contains(&id) && (t.is_integral() || matches!(t, CType::Float(_))) {
            // `&param`: a copy in thread-private memory, holding an unknown value.
            let place = self.array_for(&name, Space::Local, &t, span)?;
            self.write(&place, Expr::Opaque(t.scalar(), vec![]))?;
            Binding::Mem(place)
        } else {
            self.param_binding(&name, &t, assigned, span)?
        };
        self.env.insert(id, b);
        Ok(())
    }

    fn param_binding(&mut self, name: &str, t: &CType, assigned: bool, span: Span) -> FResult<Binding> {
        Ok(match t {
            // A pointer to a function: its number, the same in every thread.
            CType::Ptr(pointee) if matches!(**pointee, CType::Func) => {
                let v = self.new_var(name, ScalarTy::U64, VarKind::Param);
                Binding::Ptr(self.new_slot(name, Region::Code, SlotOff::Fixed(Expr::Var(v)), CType::Func))
            }
            CType::Ptr(pointee) | CType::Array(pointee, _) => {
                let elem = match pointee.as_ref() {
                    CType::Void => CType::Int { bits: 8, signed: false },
                    t => t.clone(),
                };
                let id = self.new_array(name, Space::Global, &elem, vec![None], span)?;
                let off = if assigned {
                    let v = self.new_var(name, ScalarTy::U64, VarKind::Temp);
                    self.ops.push(Op::Assign(v, Expr::Const(0, ScalarTy::U64)));
                    SlotOff::Var(v)
                } else {
                    SlotOff::Fixed(Expr::Const(0, ScalarTy::U64))
                };
                Binding::Ptr(self.new_slot(name, Region::Array(id), off, (**pointee).clone()))
            }
            CType::Record(r) => {
                if let Some(g) = self.group_kind_of(*r) {
                    return Ok(Binding::Group(g));
                }
                let layout = self.types.layout(*r).map_err(|m| FrontError::unsupported(span, m))?;
                let o = self.objs.len();
                self.objs.push(Obj {
                    record: self.types.definition(*r),
                    name: name.to_string(),
                    fields: HashMap::new(),
                });
                for fld in &layout.fields {
                    let fname = format!("{name}.{}", fld.name);
                    // Every pointer field is its own array (no aliasing between fields, as for
                    // pointer parameters); arrays in parameters are copies (never shared).
                    let b = match &fld.ty {
                        CType::Array(e, Some(n)) if matches!(**e, CType::Ptr(ref t) if !matches!(**t, CType::Func)) => {
                            let place = self.array_for(&fname, Space::Local, &fld.ty, span)?;
                            let pointee = e.pointee().cloned().unwrap_or(CType::Void);
                            self.pointer_tables.insert(
                                place.array,
                                PointerTable {
                                    name: fname.clone(),
                                    pointee,
                                    elems: vec![None; *n as usize],
                                },
                            );
                            Binding::Mem(place)
                        }
                        CType::Array(..) => Binding::Mem(self.array_for(&fname, Space::Local, &fld.ty, span)?),
                        ty => self.param_binding(&fname, ty, true, span)?,
                    };
                    self.objs[o].fields.insert(fld.id, b);
                }
                Binding::Obj(o)
            }
            CType::Ref(_) => return Err(FrontError::input(span, "a kernel parameter cannot be a reference")),
            CType::Other(s) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("kernel parameter `{name}` of type `{s}`"),
                ))
            }
            t => Binding::Var(self.new_var(name, t.scalar(), VarKind::Param), t.clone()),
        })
    }
}

/// A grid-wide barrier after a `return` (or PTX `exit`) some threads may take is refused:
/// threads that left never reach it and the grid would hang, and autosync does not decide
/// which threads leave. Elsewhere (top level, or under a branch or in a loop) it is a block
/// barrier; the SDV checker reports one whose condition may differ between blocks.
fn nested_grid_sync(body: &Block) -> FResult<()> {
    let is_grid = |t: &Stmt| matches!(t.kind, StmtKind::Barrier(_, BarrierSyntax::GridSync));
    let mut returned = false;
    let mut late = None;
    for s in &body.stmts {
        autosync_oracle::tree::visit_stmt(s, &mut |t| {
            if returned && late.is_none() && is_grid(t) {
                late = Some(t.span);
            }
            returned |= matches!(t.kind, StmtKind::Return { .. });
        });
    }
    match late {
        Some(span) => Err(FrontError::unsupported(
            span,
            "grid-wide synchronization (grid_group::sync) after a path that may leave the kernel is not modelled",
        )
        .with_help(
            "a `return` (or PTX `exit`) before it lets threads leave without reaching it, and the grid would hang",
        )),
        None => Ok(()),
    }
}

fn self_span(ast: &Ast, src: &SourceMap, k: &KernelDef) -> Span {
    let _ = ast;
    src.node_span(k.node)
}

/// Parameters the body assigns to (`p += n`, `p = q`, `p++`).
pub(crate) fn assigned_params(ast: &Ast, body: NodeId) -> Vec<u64> {
    let mut out = Vec::new();
    ast.walk(body, &mut |c| {
        let target = match ast.kind(c) {
            NodeKind::BinaryOperator if ast.binary_op(c) == Some(BinaryOp::Assign) => ast.children(c).next(),
            NodeKind::CompoundAssignOperator => ast.children(c).next(),
            NodeKind::UnaryOperator if matches!(ast.unary_op(c), Some(UnaryOp::Inc | UnaryOp::Dec)) => {
                ast.children(c).next()
            }
            _ => None,
        };
        if let Some(mut t) = target {
            while matches!(ast.kind(t), NodeKind::ParenExpr | NodeKind::ImplicitCastExpr) {
                match ast.children(t).next() {
                    Some(x) => t = x,
                    None => break,
                }
            }
            if ast.kind(t) == NodeKind::DeclRefExpr {
                if let Some(r) = ast.node(t).attrs.referenced {
                    out.push(r.id);
                }
            }
        }
    });
    out
}

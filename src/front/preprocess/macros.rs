//! The macro table: definitions parsed from `#define` lines, `-D` options and built-ins.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use super::lex::{skip_blank, Kind, Origin, Tok};

/// Macros with built-in meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// `__LINE__`: the line of the use.
    Line,
    /// `__FILE__`: the path of the file of the use.
    File,
}

/// One macro definition.
#[derive(Debug)]
pub(crate) struct Macro {
    /// Parameter names of a function-like macro (`__VA_ARGS__` for an anonymous `...`).
    pub params: Option<Vec<Rc<str>>>,
    /// Whether the last parameter collects the variadic arguments.
    pub variadic: bool,
    /// Replacement list, without whitespace tokens, with owned spellings.
    pub body: Vec<Tok>,
    /// For each body token, the parameter it names.
    pub param_of: Vec<Option<usize>>,
    /// Set for `__LINE__` and `__FILE__`.
    pub builtin: Option<Builtin>,
}

/// A small fast hasher for macro names (every identifier of the input is looked up).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Macros by name; ids are stable across `#undef` so hide sets can refer to them.
#[derive(Default)]
pub(crate) struct MacroTable {
    ids: HashMap<Rc<str>, u32, BuildHasherDefault<FxHasher>>,
    defs: Vec<Option<Rc<Macro>>>,
}

/// A parse failure in a directive: message only, the caller adds the span.
pub(crate) type DirectiveError = String;

impl MacroTable {
    /// A table with the built-in macros `__LINE__` and `__FILE__`.
    pub(crate) fn new() -> Self {
        let mut e = MacroTable::default();
        for (name, b) in [("__LINE__", Builtin::Line), ("__FILE__", Builtin::File)] {
            let m = Macro {
                params: None,
                variadic: false,
                body: vec![],
                param_of: vec![],
                builtin: Some(b),
            };
            let id = e.intern(name);
            e.defs[id as usize] = Some(Rc::new(m));
        }
        e
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.defs.len() as u32;
        self.ids.insert(name.into(), id);
        self.defs.push(None);
        id
    }

    /// The id of the macro `name` if it is defined.
    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        let id = *self.ids.get(name)?;
        self.defs[id as usize].as_ref().map(|_| id)
    }

    /// Whether `name` is a defined macro.
    pub(crate) fn is_defined(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// The definition of macro `id`, if still defined.
    pub(crate) fn get(&self, id: u32) -> Option<Rc<Macro>> {
        self.defs.get(id as usize).cloned().flatten()
    }

    /// Removes the macro `name`.
    pub(crate) fn undef(&mut self, name: &str) {
        if let Some(&id) = self.ids.get(name) {
            self.defs[id as usize] = None;
        }
    }

    /// The function-like macros still defined, in order of first mention, with their parameter
    /// names and replacement lists as text (used to find barrier helpers written as macros).
    pub(crate) fn function_like(&self) -> Vec<super::FnMacro> {
        let mut by_id: Vec<(u32, &Rc<str>)> = self.ids.iter().map(|(n, &id)| (id, n)).collect();
        by_id.sort();
        by_id
            .into_iter()
            .filter_map(|(id, name)| {
                let m = self.defs[id as usize].as_ref()?;
                let params = m.params.as_ref().filter(|_| !m.variadic && m.builtin.is_none())?;
                let mut body = String::new();
                for t in &m.body {
                    if t.space_before {
                        body.push(' ');
                    }
                    body.push_str(t.text(""));
                }
                Some(super::FnMacro {
                    name: name.to_string(),
                    params: params.iter().map(|p| p.to_string()).collect(),
                    body,
                    at: 0,
                })
            })
            .collect()
    }

    /// Defines a macro from the tokens after `#define` (whose `Src` ranges index `src`).
    pub(crate) fn define(&mut self, toks: &[Tok], src: &str) -> Result<(), DirectiveError> {
        let mut i = skip_blank(toks, 0);
        let Some(name_tok) = toks.get(i).filter(|t| t.kind == Kind::Ident) else {
            return Err("#define needs a macro name, e.g. `#define N 256`".into());
        };
        let name = name_tok.text(src).to_string();
        if name == "defined" {
            return Err("`defined` cannot be defined as a macro; rename the macro".into());
        }
        i += 1;
        let mut params = None;
        let mut variadic = false;
        if toks.get(i).is_some_and(|t| t.is_punct(src, "(")) {
            let (p, v, next) =
                parse_params(toks, i + 1, src).map_err(|m| format!("bad parameter list in #define {name}: {m}"))?;
            params = Some(p);
            variadic = v;
            i = next;
        }
        let mut body = Vec::new();
        let mut space = false;
        for t in &toks[i..] {
            if t.kind.is_blank() {
                space = true;
                continue;
            }
            let mut own = Tok::own(t.kind, t.text(src), Origin::Exp(0, 0));
            own.space_before = space && !body.is_empty();
            space = false;
            body.push(own);
        }
        let param_of: Vec<Option<usize>> = body
            .iter()
            .map(|t| {
                let p = params.as_ref()?;
                (t.kind == Kind::Ident)
                    .then(|| p.iter().position(|n: &Rc<str>| **n == *t.text("")))
                    .flatten()
            })
            .collect();
        if body.first().is_some_and(|t| t.is_punct("", "##")) || body.last().is_some_and(|t| t.is_punct("", "##")) {
            return Err(format!(
                "`##` cannot start or end the body of macro {name}; it needs an operand on both sides"
            ));
        }
        if params.is_some() {
            let stray_hash = body
                .iter()
                .enumerate()
                .any(|(k, t)| t.is_punct("", "#") && param_of.get(k + 1).copied().flatten().is_none());
            if stray_hash {
                return Err(format!(
                    "`#` in the body of macro {name} must be followed by a parameter name"
                ));
            }
        }
        let id = self.intern(&name);
        self.defs[id as usize] = Some(Rc::new(Macro {
            params,
            variadic,
            body,
            param_of,
            builtin: None,
        }));
        Ok(())
    }
}

/// Parses `a, b, ...)` starting after `(`; returns names, variadic flag, index after `)`.
fn parse_params(toks: &[Tok], mut i: usize, src: &str) -> Result<(Vec<Rc<str>>, bool, usize), String> {
    let mut names: Vec<Rc<str>> = Vec::new();
    i = skip_blank(toks, i);
    if toks.get(i).is_some_and(|t| t.is_punct(src, ")")) {
        return Ok((names, false, i + 1));
    }
    loop {
        i = skip_blank(toks, i);
        let Some(t) = toks.get(i) else {
            return Err("missing `)`".into());
        };
        let mut variadic = false;
        if t.is_punct(src, "...") {
            names.push("__VA_ARGS__".into());
            variadic = true;
        } else if t.kind == Kind::Ident {
            let n = t.text(src);
            if names.iter().any(|x| **x == *n) {
                return Err(format!("parameter `{n}` appears twice"));
            }
            names.push(n.into());
            if toks
                .get(skip_blank(toks, i + 1))
                .is_some_and(|t| t.is_punct(src, "..."))
            {
                i = skip_blank(toks, i + 1);
                variadic = true;
            }
        } else {
            return Err(format!("expected a parameter name, found `{}`", t.text(src)));
        }
        i = skip_blank(toks, i + 1);
        match toks.get(i) {
            Some(t) if t.is_punct(src, ")") => return Ok((names, variadic, i + 1)),
            Some(t) if t.is_punct(src, ",") && !variadic => i += 1,
            Some(t) => return Err(format!("expected `,` or `)`, found `{}`", t.text(src))),
            None => return Err("missing `)`".into()),
        }
    }
}

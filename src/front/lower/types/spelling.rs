//! The parser of Clang's type spellings (`const float *__restrict`, `ns::Tile<32, true>`,
//! `float (*)[65]`) into [`TyExpr`], and of its integer literals.

use crate::front::ctype::CType;

/// An integer as Clang prints it (`42`, `-1`, `16UL`, `0x10`).
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    // Clang prints a constant's value of type bool (`if constexpr` conditions) as a word.
    match s {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let body = body.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        body.parse::<u64>()
            .ok()
            .map(|v| v as i64)
            .or_else(|| body.parse::<i64>().ok())?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A parsed type.
#[derive(Clone, Debug, PartialEq)]
pub enum TyExpr {
    /// A built-in arithmetic type or void.
    Builtin(CType),
    /// A (possibly qualified, possibly templated) name.
    Named(Vec<Seg>),
    /// `T *`.
    Ptr(Box<TyExpr>),
    /// `T &`, `T &&`.
    Ref(Box<TyExpr>),
    /// `T [N]`.
    Array(Box<TyExpr>, Option<u64>),
    /// A function type.
    Func,
    /// Something not understood (kept as text).
    Other(String),
}

/// One component of a qualified name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    /// The identifier.
    pub name: String,
    /// Template arguments as printed, when present.
    pub args: Option<Vec<String>>,
}

/// `(unnamed union at f.h:3:5)`, `(anonymous struct at ...)`.
pub(super) fn is_unnamed_record(name: &str) -> bool {
    [
        "(unnamed struct",
        "(unnamed union",
        "(anonymous struct",
        "(anonymous union",
        "(unnamed class",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// A qualified name written back as text.
pub(super) fn segs_text(segs: &[Seg]) -> String {
    segs.iter()
        .map(|s| match &s.args {
            Some(a) => format!("{}<{}>", s.name, a.join(", ")),
            None => s.name.clone(),
        })
        .collect::<Vec<_>>()
        .join("::")
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    Punct(&'static str),
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '(' {
            // `(lambda at f.cu:3:7)`, `(anonymous namespace)`, `(unnamed struct at ...)`.
            let rest = &s[i + 1..];
            if rest.starts_with("lambda at ") || rest.starts_with("anonymous") || rest.starts_with("unnamed") {
                let end = rest.find(')')?;
                out.push(Tok::Ident(s[i..i + 2 + end].to_string()));
                i += end + 2;
                continue;
            }
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
            continue;
        }
        if c.is_ascii_digit() || (c == '-' && i + 1 < b.len() && (b[i + 1] as char).is_ascii_digit()) {
            let st = i;
            i += 1;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push(Tok::Num(s[st..i].to_string()));
            continue;
        }
        if c == '\'' {
            let end = s[i + 1..].find('\'')?;
            out.push(Tok::Num(s[i..i + end + 2].to_string()));
            i += end + 2;
            continue;
        }
        let two = s.get(i..i + 2).unwrap_or("");
        let p: &'static str = match two {
            "::" => "::",
            "&&" => "&&",
            _ => match c {
                '<' => "<",
                '>' => ">",
                ',' => ",",
                '*' => "*",
                '&' => "&",
                '(' => "(",
                ')' => ")",
                '[' => "[",
                ']' => "]",
                _ => return None,
            },
        };
        i += p.len();
        out.push(Tok::Punct(p));
    }
    Some(out)
}

/// Parses a type as Clang prints it.
pub fn parse(s: &str) -> Option<TyExpr> {
    if s.contains("<dependent type>") || s.contains("<overloaded function type>") || s.contains("<bound member") {
        return Some(TyExpr::Other(s.to_string()));
    }
    let toks = tokenize(s)?;
    let mut p = Parser { toks: &toks, i: 0 };
    let t = p.full_type()?;
    (p.i == toks.len()).then_some(t)
}

struct Parser<'t> {
    toks: &'t [Tok],
    i: usize,
}

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict",
    "__restrict__",
    "restrict",
    "struct",
    "class",
    "union",
    "enum",
    "typename",
    "__unaligned",
];

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }

    fn punct(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn skip_qualifiers(&mut self) {
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if QUALIFIERS.contains(&w.as_str()) => self.i += 1,
                Some(Tok::Ident(w)) if w == "__attribute__" => {
                    self.i += 1;
                    self.skip_group();
                }
                _ => break,
            }
        }
    }

    /// Skips a balanced `( ... )`.
    fn skip_group(&mut self) {
        if !self.punct("(") {
            return;
        }
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                Some(Tok::Punct("(")) => depth += 1,
                Some(Tok::Punct(")")) => depth -= 1,
                None => return,
                _ => {}
            }
            self.i += 1;
        }
    }

    fn full_type(&mut self) -> Option<TyExpr> {
        self.skip_qualifiers();
        let base = self.base()?;
        self.skip_qualifiers();
        self.declarator(base)
    }

    /// The base type: a builtin or a (qualified, templated) name.
    pub(super) fn base(&mut self) -> Option<TyExpr> {
        let mut words: Vec<String> = Vec::new();
        while let Some(Tok::Ident(w)) = self.peek() {
            if is_builtin_word(w) {
                words.push(w.clone());
                self.i += 1;
                self.skip_qualifiers();
            } else {
                break;
            }
        }
        if !words.is_empty() {
            return builtin(&words).map(TyExpr::Builtin);
        }
        // A qualified name.
        let mut segs = Vec::new();
        self.punct("::");
        loop {
            let Some(Tok::Ident(name)) = self.peek().cloned() else {
                return None;
            };
            self.i += 1;
            let args = if self.punct("<") {
                Some(self.template_args()?)
            } else {
                None
            };
            segs.push(Seg { name, args });
            if !self.punct("::") {
                break;
            }
        }
        if segs.len() == 1 && segs[0].name.starts_with('(') && segs[0].args.is_none() {
            return Some(TyExpr::Other(segs[0].name.clone()));
        }
        Some(TyExpr::Named(segs))
    }

    /// Template arguments after `<`, up to the matching `>`, each as text.
    pub(super) fn template_args(&mut self) -> Option<Vec<String>> {
        let mut args = Vec::new();
        let mut cur = String::new();
        let mut depth = 0;
        loop {
            let t = self.peek()?.clone();
            self.i += 1;
            match t {
                Tok::Punct(">") if depth == 0 => {
                    if !cur.trim().is_empty() {
                        args.push(cur.trim().to_string());
                    }
                    return Some(args);
                }
                Tok::Punct(",") if depth == 0 => {
                    args.push(cur.trim().to_string());
                    cur.clear();
                }
                Tok::Punct(p) => {
                    if matches!(p, "<" | "(" | "[") {
                        depth += 1;
                    } else if matches!(p, ">" | ")" | "]") {
                        depth -= 1;
                    }
                    if p == "*" || p == "&" || p == "&&" {
                        cur.push(' ');
                    }
                    cur.push_str(p);
                }
                Tok::Ident(w) | Tok::Num(w) => {
                    if cur.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        cur.push(' ');
                    }
                    cur.push_str(&w);
                }
            }
        }
    }

    /// Pointer/reference prefixes, then a parenthesized inner declarator or array/function
    /// suffixes (`float (*)[65]` is a pointer to arrays of 65 floats).
    fn declarator(&mut self, base: TyExpr) -> Option<TyExpr> {
        let mut t = base;
        loop {
            if self.punct("*") {
                t = TyExpr::Ptr(Box::new(t));
            } else if self.punct("&") || self.punct("&&") {
                t = TyExpr::Ref(Box::new(t));
            } else {
                break;
            }
            self.skip_qualifiers();
        }
        // `( inner ) suffixes`: the inner declarator applies to the suffixed type.
        if matches!(self.peek(), Some(Tok::Punct("("))) && self.is_inner_declarator() {
            self.i += 1;
            let start = self.i;
            let mut depth = 1;
            while depth > 0 {
                match self.peek()? {
                    Tok::Punct("(") => depth += 1,
                    Tok::Punct(")") => depth -= 1,
                    _ => {}
                }
                self.i += 1;
            }
            let inner_end = self.i - 1;
            let suffixed = self.suffixes(t)?;
            let mut sub = Parser {
                toks: &self.toks[start..inner_end],
                i: 0,
            };
            let r = sub.declarator(suffixed)?;
            return (sub.i == sub.toks.len()).then_some(r);
        }
        // Arrays of references do not exist: Clang prints a substituted `const T &` with an
        // array `T` as `const int &[2]`, a reference to the array.
        match t {
            TyExpr::Ref(inner) => Some(TyExpr::Ref(Box::new(self.suffixes(*inner)?))),
            t => self.suffixes(t),
        }
    }

    fn is_inner_declarator(&self) -> bool {
        matches!(self.toks.get(self.i + 1), Some(Tok::Punct("*" | "&" | "&&" | "(")))
    }

    fn suffixes(&mut self, base: TyExpr) -> Option<TyExpr> {
        let mut dims: Vec<Option<u64>> = Vec::new();
        let mut func = false;
        loop {
            if self.punct("[") {
                let n = match self.peek() {
                    Some(Tok::Num(v)) => {
                        let v = parse_int(v).map(|x| x as u64);
                        self.i += 1;
                        v
                    }
                    _ => None,
                };
                if !self.punct("]") {
                    return None;
                }
                dims.push(n);
            } else if matches!(self.peek(), Some(Tok::Punct("("))) {
                self.skip_group();
                func = true;
                // `noexcept`, `const` after a function type.
                while matches!(self.peek(), Some(Tok::Ident(w)) if w == "noexcept" || w == "const" || w == "volatile") {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
        if func {
            return Some(TyExpr::Func);
        }
        let mut t = base;
        for d in dims.into_iter().rev() {
            t = TyExpr::Array(Box::new(t), d);
        }
        Some(t)
    }
}

fn is_builtin_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "bool"
            | "_Bool"
            | "char"
            | "signed"
            | "unsigned"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "__int128"
            | "wchar_t"
            | "char8_t"
            | "char16_t"
            | "char32_t"
            | "__fp16"
            | "_Float16"
            | "__bf16"
            | "half"
    )
}

fn builtin(words: &[String]) -> Option<CType> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let longs = words.iter().filter(|w| *w == "long").count();
    if has("void") {
        return Some(CType::Void);
    }
    if has("bool") || has("_Bool") {
        return Some(CType::Bool);
    }
    if has("float") {
        return Some(CType::Float(32));
    }
    if has("double") {
        // NVPTX: long double is double.
        return Some(CType::Float(64));
    }
    if has("__fp16") || has("_Float16") || has("__bf16") || has("half") {
        return Some(CType::Float(16));
    }
    let unsigned = has("unsigned");
    let bits = if has("__int128") {
        return Some(CType::Other("__int128".into()));
    } else if has("char") || has("char8_t") {
        8
    } else if has("short") || has("char16_t") {
        16
    } else if longs >= 1 {
        64
    } else {
        32
    };
    // Plain `char` is signed on the targets CUDA supports; wchar_t/char32_t widths as on Linux.
    let signed = !unsigned && !has("char16_t") && !has("char32_t") && !has("char8_t");
    Some(CType::Int { bits, signed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(t: CType) -> TyExpr {
        TyExpr::Builtin(t)
    }

    #[test]
    fn parses_declarators() {
        assert_eq!(parse("unsigned int"), Some(b(CType::UINT)));
        assert_eq!(
            parse("const float *__restrict"),
            Some(TyExpr::Ptr(Box::new(b(CType::Float(32)))))
        );
        assert_eq!(
            parse("float[64][65]"),
            Some(TyExpr::Array(
                Box::new(TyExpr::Array(Box::new(b(CType::Float(32))), Some(65))),
                Some(64)
            ))
        );
        assert_eq!(
            parse("float (*)[65]"),
            Some(TyExpr::Ptr(Box::new(TyExpr::Array(
                Box::new(b(CType::Float(32))),
                Some(65)
            ))))
        );
        assert_eq!(
            parse("float *[4]"),
            Some(TyExpr::Array(
                Box::new(TyExpr::Ptr(Box::new(b(CType::Float(32))))),
                Some(4)
            ))
        );
        assert_eq!(
            parse("const int &[2]"),
            Some(TyExpr::Ref(Box::new(TyExpr::Array(Box::new(b(CType::INT)), Some(2)))))
        );
        assert_eq!(parse("void (int *, int)"), Some(TyExpr::Func));
        assert_eq!(parse("int (*)(int)"), Some(TyExpr::Ptr(Box::new(TyExpr::Func))));
        assert_eq!(parse("unsigned long long"), Some(b(CType::U64)));
        assert_eq!(
            parse("const ns::Foo<float *, true, ns::E::B> &"),
            Some(TyExpr::Ref(Box::new(TyExpr::Named(vec![
                Seg {
                    name: "ns".into(),
                    args: None
                },
                Seg {
                    name: "Foo".into(),
                    args: Some(vec!["float *".into(), "true".into(), "ns::E::B".into()])
                }
            ]))))
        );
        assert_eq!(
            parse("Outer<Inner<2>, 3>::T"),
            Some(TyExpr::Named(vec![
                Seg {
                    name: "Outer".into(),
                    args: Some(vec!["Inner<2>".into(), "3".into()])
                },
                Seg {
                    name: "T".into(),
                    args: None
                }
            ]))
        );
        assert_eq!(
            parse("(lambda at k.cu:3:7)"),
            Some(TyExpr::Other("(lambda at k.cu:3:7)".into()))
        );
        assert_eq!(parse("int"), Some(b(CType::INT)));
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("16UL"), Some(16));
        assert_eq!(parse_int("-1"), Some(-1));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("18446744073709551615"), Some(-1));
    }
}

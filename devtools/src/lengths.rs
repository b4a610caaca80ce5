//! Function lengths: every function and method of a crate outside `#[cfg(test)]` items, with
//! its length in lines, so that a test can hold the limit and a note can list the longest.

use std::path::Path;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// A function and its length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnLength {
    /// `file:line` of its start.
    pub at: String,
    /// Its name.
    pub name: String,
    /// Lines from the signature to the closing brace.
    pub lines: usize,
}

/// The functions of the crate whose root file is `root`, longest first.
pub fn functions(root: &Path) -> Vec<FnLength> {
    let g = crate::layering::Graph::read(root);
    let mut out = Vec::new();
    for file in g.files.values() {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(ast) = syn::parse_file(&text) else { continue };
        let mut v = Lengths {
            file: file.display().to_string(),
            out: &mut out,
        };
        v.visit_file(&ast);
    }
    out.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.at.cmp(&b.at)));
    out
}

struct Lengths<'a> {
    file: String,
    out: &'a mut Vec<FnLength>,
}

impl Lengths<'_> {
    fn record(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
        let (start, end) = (span.start().line, span.end().line);
        self.out.push(FnLength {
            at: format!("{}:{start}", self.file),
            name: name.to_string(),
            lines: end + 1 - start,
        });
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !crate::layering::is_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !crate::layering::is_test(&f.attrs) {
            self.record(&f.sig.ident, f.span());
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !crate::layering::is_test(&f.attrs) {
            self.record(&f.sig.ident, f.span());
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
}

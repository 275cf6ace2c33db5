//! Where a field of an emitted value is written in the source.
//!
//! Checks that run after evaluation (schema validation of desired bodies)
//! find problems by field path (`spec.forProvider.region`); users want the
//! `file:line,col` of the HCL that wrote it. The path is followed through
//! the literal structure of the block's `body` (object constructors,
//! tuples, nested `body` blocks) as far as it is written out; where a value
//! is computed (a function call, a local, a `for`), the location is that
//! expression.
//!
//! This re-parses one file and runs only when something is reported, so it
//! keeps nothing in the compiled program and costs nothing on success.

use fnhcl_base::{SourceMap, Span};
use fnhcl_syntax::ast::{Block, Body, Expr, ExprKind, Structure};

use crate::compile::{key_span, object_key_name};

/// One step of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldStep<'a> {
    Key(&'a str),
    Index(usize),
}

/// The source of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// The written value at the deepest step of the path that could be
    /// followed (the whole body if none).
    pub value: Span,
    /// The key that names the last followed step, when that step is an
    /// object key or attribute name.
    pub key: Option<Span>,
    /// True when the whole path was followed.
    pub exact: bool,
}

impl Location {
    /// The span to report: the key for a field that should not be there,
    /// else the value.
    pub fn for_key(&self) -> Span {
        if self.exact {
            self.key.unwrap_or(self.value)
        } else {
            self.value
        }
    }
}

/// Locates fields in the files of one program, parsing each file at most
/// once (a response may report many violations).
pub struct Locator<'s> {
    sources: &'s SourceMap,
    files: Vec<Option<Body>>,
}

impl<'s> Locator<'s> {
    pub fn new(sources: &'s SourceMap) -> Locator<'s> {
        Locator {
            sources,
            files: Vec::new(),
        }
    }

    fn file(&mut self, file: fnhcl_base::FileId) -> &Body {
        let i = file.0 as usize;
        if self.files.len() <= i {
            self.files.resize_with(i + 1, || None);
        }
        let sources = self.sources;
        self.files[i].get_or_insert_with(|| fnhcl_syntax::parse_file(sources, file).0)
    }

    /// Where `path` is written inside the body of the `resource` or
    /// `resources` block whose header is `header` (the span a
    /// [`crate::DesiredResource`] carries).
    pub fn resource_field(&mut self, header: Span, path: &[FieldStep<'_>]) -> Option<Location> {
        let file_body = self.file(header.file);
        let block = find_block(file_body, &|b| b.header_span() == header)?;
        let holder = if &*block.ident.name == "resources" {
            block.body.items.iter().find_map(|s| match s {
                Structure::Block(b) if &*b.ident.name == "template" => Some(&b.body),
                _ => None,
            })?
        } else {
            &block.body
        };
        body_of(holder).map(|b| b.locate(path))
    }

    /// Where `path` is written in the bodies of `composite "status"` (or
    /// `"connection"`) blocks: the first block whose body writes the whole
    /// path, else the one that writes most of it.
    pub fn composite_field(&mut self, object: &str, path: &[FieldStep<'_>]) -> Option<Location> {
        let mut best: Option<(usize, Location)> = None;
        let ids: Vec<fnhcl_base::FileId> = self.sources.files().map(|(id, _)| id).collect();
        for file in ids {
            let file_body = self.file(file);
            let mut blocks = Vec::new();
            fnhcl_syntax::visit::each_block(file_body, &mut |b| {
                if &*b.ident.name == "composite"
                    && b.labels.first().is_some_and(|l| l.value == object)
                {
                    blocks.push(b);
                }
            });
            for b in blocks {
                let Some(body) = body_of(&b.body) else {
                    continue;
                };
                let (depth, loc) = body.locate_depth(path);
                if loc.exact {
                    return Some(loc);
                }
                if best.as_ref().is_none_or(|(d, _)| depth > *d) {
                    best = Some((depth, loc));
                }
            }
        }
        best.map(|(_, l)| l)
    }
}

/// [`Locator::resource_field`] for one lookup.
pub fn locate_resource_field(
    sources: &SourceMap,
    header: Span,
    path: &[FieldStep<'_>],
) -> Option<Location> {
    Locator::new(sources).resource_field(header, path)
}

/// [`Locator::composite_field`] for one lookup.
pub fn locate_composite_field(
    sources: &SourceMap,
    object: &str,
    path: &[FieldStep<'_>],
) -> Option<Location> {
    Locator::new(sources).composite_field(object, path)
}

/// A block's `body`, written as an attribute or as a block (D4).
enum BodyRef<'a> {
    Expr(&'a Expr),
    Block(&'a Body),
}

fn body_of(holder: &Body) -> Option<BodyRef<'_>> {
    holder.items.iter().find_map(|s| match s {
        Structure::Attribute(a) if &*a.name.name == "body" => Some(BodyRef::Expr(&a.expr)),
        Structure::Block(b) if &*b.ident.name == "body" => Some(BodyRef::Block(&b.body)),
        _ => None,
    })
}

impl BodyRef<'_> {
    fn locate(&self, path: &[FieldStep<'_>]) -> Location {
        self.locate_depth(path).1
    }

    fn locate_depth(&self, path: &[FieldStep<'_>]) -> (usize, Location) {
        let mut loc = Location {
            value: match self {
                BodyRef::Expr(e) => e.span,
                BodyRef::Block(b) => b.span,
            },
            key: None,
            exact: path.is_empty(),
        };
        let mut cur = match self {
            BodyRef::Expr(e) => Node::Expr(e),
            BodyRef::Block(b) => Node::Body(b),
        };
        for (depth, step) in path.iter().enumerate() {
            match cur.step(*step) {
                Some((next, key)) => {
                    loc.key = key;
                    loc.value = next.span();
                    cur = next;
                }
                None => return (depth, loc),
            }
        }
        loc.exact = true;
        (path.len(), loc)
    }
}

#[derive(Clone, Copy)]
enum Node<'a> {
    Expr(&'a Expr),
    Body(&'a Body),
}

impl<'a> Node<'a> {
    fn span(self) -> Span {
        match self {
            Node::Expr(e) => e.span,
            Node::Body(b) => b.span,
        }
    }

    /// The node one step down, with the span of the key that names it.
    fn step(self, step: FieldStep<'_>) -> Option<(Node<'a>, Option<Span>)> {
        match self {
            Node::Body(b) => {
                let FieldStep::Key(k) = step else {
                    return None;
                };
                b.items.iter().find_map(|s| match s {
                    Structure::Attribute(a) if &*a.name.name == k => {
                        Some((Node::Expr(&a.expr), Some(a.name.span)))
                    }
                    Structure::Block(bl) if &*bl.ident.name == k && bl.labels.is_empty() => {
                        Some((Node::Body(&bl.body), Some(bl.ident.span)))
                    }
                    _ => None,
                })
            }
            Node::Expr(e) => match (&e.kind, step) {
                (ExprKind::Parens(inner), _) => Node::Expr(inner).step(step),
                (ExprKind::Object(items), FieldStep::Key(k)) => {
                    // The last item with the key wins, as in evaluation.
                    items.iter().rev().find_map(|it| {
                        (object_key_name(it)? == k)
                            .then(|| (Node::Expr(&it.value), Some(key_span(it))))
                    })
                }
                (ExprKind::Tuple(elems), FieldStep::Index(i)) => {
                    elems.get(i).map(|e| (Node::Expr(e), None))
                }
                _ => None,
            },
        }
    }
}

fn find_block<'a>(body: &'a Body, pred: &dyn Fn(&Block) -> bool) -> Option<&'a Block> {
    for s in &body.items {
        if let Structure::Block(b) = s {
            if pred(b) {
                return Some(b);
            }
            if let Some(found) = find_block(&b.body, pred) {
                return Some(found);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(text: &str) -> SourceMap {
        let mut s = SourceMap::new();
        s.add("main.hcl", text);
        s
    }

    fn header(sources: &SourceMap, name: &str) -> Span {
        let (body, diags) = fnhcl_syntax::parse_file(sources, fnhcl_base::FileId(0));
        assert!(diags.is_empty(), "{diags:?}");
        find_block(&body, &|b| {
            b.labels.first().is_some_and(|l| l.value == name)
        })
        .expect("block")
        .header_span()
    }

    const PROGRAM: &str = r#"
group {
  resource bucket {
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      spec = {
        forProvider = {
          regoin = "eu-west-1"
          "tags" = merge({ a = "b" }, {})
          list = [1, { x = 2 }]
        }
      }
    }
  }
}
resources things {
  for_each = [1]
  template {
    body {
      spec {
        size = "big"
      }
    }
  }
}
composite status {
  body = { ready = { count = "x" } }
}
"#;

    fn text(s: &SourceMap, span: Span) -> String {
        format!("{} {}", s.range_text(span), s.slice(span))
    }

    #[test]
    fn follows_literal_objects_and_tuples() {
        let s = sources(PROGRAM);
        let h = header(&s, "bucket");
        let path = [
            FieldStep::Key("spec"),
            FieldStep::Key("forProvider"),
            FieldStep::Key("regoin"),
        ];
        let loc = locate_resource_field(&s, h, &path).unwrap();
        assert!(loc.exact);
        assert_eq!(text(&s, loc.for_key()), "main.hcl:9,11-17 regoin");
        assert_eq!(text(&s, loc.value), "main.hcl:9,20-31 \"eu-west-1\"");

        let path = [
            FieldStep::Key("spec"),
            FieldStep::Key("forProvider"),
            FieldStep::Key("list"),
            FieldStep::Index(1),
            FieldStep::Key("x"),
        ];
        let loc = locate_resource_field(&s, h, &path).unwrap();
        assert_eq!(text(&s, loc.value), "main.hcl:11,28-29 2");

        // A quoted key, then a computed value: the call is the location.
        let path = [
            FieldStep::Key("spec"),
            FieldStep::Key("forProvider"),
            FieldStep::Key("tags"),
            FieldStep::Key("a"),
        ];
        let loc = locate_resource_field(&s, h, &path).unwrap();
        assert!(!loc.exact);
        assert_eq!(
            text(&s, loc.for_key()),
            "main.hcl:10,20-42 merge({ a = \"b\" }, {})"
        );
    }

    #[test]
    fn missing_field_points_at_the_enclosing_object() {
        let s = sources(PROGRAM);
        let h = header(&s, "bucket");
        let path = [FieldStep::Key("spec"), FieldStep::Key("writeConnection")];
        let loc = locate_resource_field(&s, h, &path).unwrap();
        assert!(!loc.exact);
        assert!(text(&s, loc.for_key()).starts_with("main.hcl:7,14-13,8 {"));
    }

    #[test]
    fn collection_template_with_body_block() {
        let s = sources(PROGRAM);
        let h = header(&s, "things");
        let path = [FieldStep::Key("spec"), FieldStep::Key("size")];
        let loc = locate_resource_field(&s, h, &path).unwrap();
        assert_eq!(text(&s, loc.for_key()), "main.hcl:22,9-13 size");
        assert_eq!(text(&s, loc.value), "main.hcl:22,16-21 \"big\"");
    }

    #[test]
    fn composite_status() {
        let s = sources(PROGRAM);
        let path = [FieldStep::Key("ready"), FieldStep::Key("count")];
        let loc = locate_composite_field(&s, "status", &path).unwrap();
        assert_eq!(text(&s, loc.value), "main.hcl:28,30-33 \"x\"");
        assert!(locate_composite_field(&s, "connection", &path).is_none());
    }

    #[test]
    fn unknown_header_is_none() {
        let s = sources(PROGRAM);
        let h = Span::new(fnhcl_base::FileId(0), 0, 1);
        assert!(locate_resource_field(&s, h, &[FieldStep::Key("spec")]).is_none());
    }
}

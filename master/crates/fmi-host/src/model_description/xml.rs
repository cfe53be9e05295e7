//! A small element tree read with quick-xml, keeping each element's line and column so that
//! every later error can point into modelDescription.xml.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::str::FromStr;

use super::ParseError;

/// One XML element with its attributes, child elements and source position.
#[derive(Debug, Clone)]
pub struct Element {
    /// The tag name.
    pub name: String,
    /// Attributes in document order (name, unescaped value).
    pub attributes: Vec<(String, String)>,
    /// Child elements in document order (text content is not needed by FMI).
    pub children: Vec<Element>,
    /// 1-based line of the start tag.
    pub line: usize,
    /// 1-based column of the start tag.
    pub column: usize,
}

/// The deepest nesting of elements any reader accepts. The element tree is walked (and
/// dropped) recursively, so a document nested tens of thousands deep would overflow the
/// stack; the deepest FMI and SSP documents nest some ten elements, a system of nested
/// systems a few per level.
pub const MAX_DEPTH: usize = 256;

/// Parses `text` into its root element; refuses elements nested deeper than [`MAX_DEPTH`].
pub fn parse_document(text: &str) -> Result<Element, ParseError> {
    let lines = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let start_of_event = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| {
            let (line, column) = lines.position(reader.error_position() as usize);
            ParseError::new(line, column, format!("malformed XML: {e}"))
        })?;
        match event {
            Event::Start(tag) | Event::Empty(tag) if root.is_some() => {
                let (line, column) = lines.position(start_of_event);
                return Err(ParseError::new(
                    line,
                    column,
                    format!("content after the root element: <{}>", tag_name(&tag)),
                ));
            }
            Event::Start(tag) => {
                let position = lines.position(start_of_event);
                check_depth(&stack, &tag, position)?;
                stack.push(element(&tag, position)?);
            }
            Event::Empty(tag) => {
                let position = lines.position(start_of_event);
                check_depth(&stack, &tag, position)?;
                let done = element(&tag, position)?;
                close(&mut stack, &mut root, done);
            }
            Event::End(_) => {
                let done = stack
                    .pop()
                    .expect("quick-xml checks end names against open elements");
                close(&mut stack, &mut root, done);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(ParseError::new(
            open.line,
            open.column,
            format!("malformed XML: <{}> is never closed", open.name),
        ));
    }
    root.ok_or_else(|| ParseError::new(1, 1, "malformed XML: the document has no root element"))
}

/// Refuses the element `tag` when it would be nested deeper than [`MAX_DEPTH`] inside the
/// open elements `stack`.
fn check_depth(
    stack: &[Element],
    tag: &BytesStart,
    (line, column): (usize, usize),
) -> Result<(), ParseError> {
    if stack.len() < MAX_DEPTH {
        return Ok(());
    }
    Err(ParseError::new(
        line,
        column,
        format!(
            "<{}> is nested deeper than {MAX_DEPTH} elements",
            tag_name(tag)
        ),
    ))
}

fn close(stack: &mut [Element], root: &mut Option<Element>, done: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(done),
        None => *root = Some(done),
    }
}

fn tag_name(tag: &BytesStart) -> String {
    tag.name().as_ref().to_string()
}

fn element(tag: &BytesStart, (line, column): (usize, usize)) -> Result<Element, ParseError> {
    let name = tag_name(tag);
    let mut attributes = Vec::new();
    for attribute in tag.attributes() {
        let attribute = attribute.map_err(|e| {
            ParseError::new(
                line,
                column,
                format!("malformed attribute in <{name}>: {e}"),
            )
        })?;
        let key = attribute.key.as_ref().to_string();
        let value = attribute
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| {
                ParseError::new(
                    line,
                    column,
                    format!("malformed value of {key} in <{name}>: {e}"),
                )
            })?;
        attributes.push((key, value.into_owned()));
    }
    Ok(Element {
        name,
        attributes,
        children: Vec::new(),
        line,
        column,
    })
}

impl Element {
    /// The value of attribute `key`, if present.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of a required attribute.
    pub fn required(&self, key: &str) -> Result<&str, ParseError> {
        self.attr(key).ok_or_else(|| {
            self.error(format!(
                "<{}> lacks the required attribute {key}",
                self.name
            ))
        })
    }

    /// Attribute `key` parsed as `T`, if present.
    pub fn parsed<T: FromStr>(&self, key: &str) -> Result<Option<T>, ParseError> {
        self.attr(key)
            .map(|text| self.parse_value(key, text))
            .transpose()
    }

    /// A required attribute parsed as `T`.
    pub fn parsed_required<T: FromStr>(&self, key: &str) -> Result<T, ParseError> {
        self.parse_value(key, self.required(key)?)
    }

    /// Attribute `key` as an xs:boolean, `default` when absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, ParseError> {
        match self.attr(key) {
            None => Ok(default),
            Some(text) => parse_bool(text).ok_or_else(|| {
                self.error(format!(
                    "{key}=\"{text}\" in <{}> is not a boolean",
                    self.name
                ))
            }),
        }
    }

    /// The child elements named `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |child| child.name == name)
    }

    /// The first child element named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|child| child.name == name)
    }

    /// `read` applied to each child named `item` of the child `list` (such as the `Unit`s of
    /// `UnitDefinitions`), in order; empty when there is no `list` child.
    pub fn list<T>(
        &self,
        list: &str,
        item: &str,
        read: impl FnMut(&Element) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        match self.child(list) {
            Some(list) => list.children_named(item).map(read).collect(),
            None => Ok(Vec::new()),
        }
    }

    /// An error located at this element.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.line, self.column, message)
    }

    fn parse_value<T: FromStr>(&self, key: &str, text: &str) -> Result<T, ParseError> {
        text.trim().parse().map_err(|_| {
            self.error(format!(
                "{key}=\"{text}\" in <{}> is not a valid {}",
                self.name,
                short_type_name::<T>()
            ))
        })
    }
}

/// Parses an xs:boolean ("true", "false", "1", "0").
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// Byte offsets of line starts, to turn a byte position into line and column.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        (line, offset - self.starts[line - 1] + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `depth` nested `<e>` elements, one per line, the innermost empty.
    fn nested(depth: usize) -> String {
        let mut text = "<e>\n".repeat(depth - 1);
        text.push_str("<e/>\n");
        text.push_str(&"</e>\n".repeat(depth - 1));
        text
    }

    #[test]
    fn nesting_up_to_the_limit_is_read_and_deeper_refused_at_the_element() {
        let mut element = parse_document(&nested(MAX_DEPTH)).unwrap();
        let mut depth = 1;
        while let Some(child) = element.children.pop() {
            element = child;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);

        let error = parse_document(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!((error.line, error.column), (MAX_DEPTH + 1, 1));
        assert_eq!(error.message, "<e> is nested deeper than 256 elements");
        // Far deeper, the error comes before the stack could overflow.
        let error = parse_document(&nested(100_000)).unwrap_err();
        assert_eq!(error.line, MAX_DEPTH + 1);
    }
}

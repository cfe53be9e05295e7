//! Array values as written on the command line and in system files: `[1, 2, 3]` for a vector,
//! `[[1, 2], [3, 4]]` for a matrix (a list of rows), nested further for more dimensions.

/// The elements of a list literal in row-major order and its shape (sizes outermost first);
/// for text that is not a list, the text itself and the empty shape of a scalar.
pub fn parse(text: &str) -> Result<(Vec<&str>, Vec<usize>), String> {
    let text = text.trim();
    if !text.starts_with('[') {
        return Ok((vec![text], Vec::new()));
    }
    let mut parser = Parser { text, at: 0 };
    let (elements, shape) = parser.list()?;
    parser.skip_space();
    if parser.at != text.len() {
        return Err(format!(
            "unexpected \"{}\" after the list {text:?}",
            &text[parser.at..]
        ));
    }
    Ok((elements, shape))
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Parser<'a> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn expect(&mut self, wanted: char) -> Result<(), String> {
        self.skip_space();
        match self.peek() {
            Some(c) if c == wanted => {
                self.at += c.len_utf8();
                Ok(())
            }
            Some(c) => Err(format!(
                "expected '{wanted}' but found '{c}' in {:?}",
                self.text
            )),
            None => Err(format!("expected '{wanted}' at the end of {:?}", self.text)),
        }
    }

    /// `[item, item, ...]` where the items are all lists of one shape or all plain values.
    fn list(&mut self) -> Result<(Vec<&'a str>, Vec<usize>), String> {
        self.expect('[')?;
        let mut elements = Vec::new();
        let mut inner: Option<Vec<usize>> = None;
        let mut items = 0;
        self.skip_space();
        if self.peek() == Some(']') {
            self.at += 1;
            return Ok((elements, vec![0]));
        }
        loop {
            self.skip_space();
            let (item, shape) = if self.peek() == Some('[') {
                self.list()?
            } else {
                (vec![self.value()?], Vec::new())
            };
            match &inner {
                Some(expected) if *expected != shape => {
                    return Err(format!(
                        "the items of a list must all have one shape ({expected:?} and {shape:?} \
                         in {:?})",
                        self.text
                    ))
                }
                _ => inner = Some(shape),
            }
            elements.extend(item);
            items += 1;
            self.skip_space();
            match self.peek() {
                Some(',') => self.at += 1,
                _ => break,
            }
        }
        self.expect(']')?;
        let mut shape = vec![items];
        shape.extend(inner.unwrap_or_default());
        Ok((elements, shape))
    }

    /// A plain value: everything up to the next `,` or `]`.
    fn value(&mut self) -> Result<&'a str, String> {
        let rest = &self.text[self.at..];
        let end = rest.find([',', ']', '[']).unwrap_or(rest.len());
        let value = rest[..end].trim();
        if value.is_empty() {
            return Err(format!("an empty element in {:?}", self.text));
        }
        self.at += end;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_lists_of_rows_flatten_in_row_major_order() {
        assert_eq!(parse("2.5").unwrap(), (vec!["2.5"], vec![]));
        assert_eq!(parse("[1, 2,3]").unwrap(), (vec!["1", "2", "3"], vec![3]));
        assert_eq!(
            parse(" [[1, 2], [3, 4], [5, 6]] ").unwrap(),
            (vec!["1", "2", "3", "4", "5", "6"], vec![3, 2])
        );
        assert_eq!(
            parse("[[[1],[2]]]").unwrap(),
            (vec!["1", "2"], vec![1, 2, 1])
        );
        assert_eq!(
            parse("[true, false]").unwrap(),
            (vec!["true", "false"], vec![2])
        );
        assert_eq!(parse("[]").unwrap(), (vec![], vec![0]));
    }

    #[test]
    fn ragged_and_unclosed_lists_are_refused() {
        assert!(parse("[[1, 2], [3]]")
            .unwrap_err()
            .contains("must all have one shape"));
        assert!(parse("[[1, 2], 3]")
            .unwrap_err()
            .contains("must all have one shape"));
        assert!(parse("[1, 2").unwrap_err().contains("expected ']'"));
        assert!(parse("[1, , 2]").unwrap_err().contains("an empty element"));
        assert!(parse("[1] 2").unwrap_err().contains("after the list"));
    }
}

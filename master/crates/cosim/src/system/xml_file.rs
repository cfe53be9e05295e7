//! An XML file of an SSP system (the `.ssd`, or a referenced `.ssv`): its element tree and
//! the locations and errors that name the file, the line and the element. Elements are
//! matched by local name, so any namespace prefix works.

use std::path::{Path, PathBuf};

use super::description::Location;
use crate::error::{Error, Result};
use fmi_host::model_description::xml::{parse_bool, parse_document, Element};

/// A parsed XML file of the system `system_path`.
pub struct XmlFile {
    /// The root element.
    pub root: Element,
    /// The file given to `tandem run`, which every error names.
    system_path: PathBuf,
    /// The file's name relative to the system file or package (`None` when it is that file).
    label: Option<String>,
}

impl XmlFile {
    /// Reads and parses `folder/relative`; `label` is how messages name it (`None` when it is
    /// the file given to `tandem run`).
    pub fn read(
        system_path: &Path,
        folder: &Path,
        relative: &Path,
        label: Option<String>,
    ) -> Result<XmlFile> {
        let path = folder.join(relative);
        let text = tandem_files::read_text(&path).map_err(|e| {
            let shown = label.clone().unwrap_or_else(|| path.display().to_string());
            Error::InputFile {
                path: system_path.to_path_buf(),
                message: format!("cannot read {shown}: {e}"),
            }
        })?;
        let root = parse_document(&text).map_err(|e| Error::InputFile {
            path: system_path.to_path_buf(),
            message: format!(
                "{}line {}, column {}: {}",
                label.as_ref().map(|l| format!("{l}, ")).unwrap_or_default(),
                e.line,
                e.column,
                e.message
            ),
        })?;
        Ok(XmlFile {
            root,
            system_path: system_path.to_path_buf(),
            label,
        })
    }

    /// Where `element` was written.
    pub fn at(&self, element: &Element) -> Location {
        Location {
            file: self.label.clone(),
            line: element.line,
            element: Some(element.name.clone()),
        }
    }

    /// An error at `element`.
    pub fn error(&self, element: &Element, message: impl std::fmt::Display) -> Error {
        self.at(element).error(&self.system_path, message)
    }

    /// An error at `element` about something the supported subset leaves out.
    pub fn unsupported(&self, element: &Element, what: impl std::fmt::Display) -> Error {
        self.error(
            element,
            format!("{what} is not supported (see the SSP subset in docs/system-file.md)"),
        )
    }

    /// The root element, which must be named `local`.
    pub fn root_named(&self, local: &str) -> Result<&Element> {
        if local_name(&self.root.name) == local {
            Ok(&self.root)
        } else {
            Err(self.error(
                &self.root,
                format!("the root element is <{}>, expected {local}", self.root.name),
            ))
        }
    }

    /// A required attribute of `element`.
    pub fn required<'e>(&self, element: &'e Element, key: &str) -> Result<&'e str> {
        element
            .attr(key)
            .ok_or_else(|| self.error(element, format!("the attribute {key} is missing")))
    }

    /// Attribute `key` of `element` as a number, if present.
    pub fn number(&self, element: &Element, key: &str) -> Result<Option<f64>> {
        element
            .attr(key)
            .map(|text| {
                text.trim().parse().map_err(|_| {
                    self.error(element, format!("{key}=\"{text}\" is not a valid number"))
                })
            })
            .transpose()
    }

    /// Attribute `key` of `element` as an `xs:boolean`, `default` when absent.
    pub fn flag(&self, element: &Element, key: &str, default: bool) -> Result<bool> {
        match element.attr(key) {
            None => Ok(default),
            Some(text) => parse_bool(text)
                .ok_or_else(|| self.error(element, format!("{key}=\"{text}\" is not a boolean"))),
        }
    }
}

/// The name of an element or attribute without its namespace prefix.
pub fn local_name(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The child elements of `element` whose local name is `local`.
pub fn children<'e>(
    element: &'e Element,
    local: &'e str,
) -> impl Iterator<Item = &'e Element> + 'e {
    element
        .children
        .iter()
        .filter(move |child| local_name(&child.name) == local)
}

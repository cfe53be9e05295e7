//! `--sets file.csv`: parameter sets written out, a header of `component.parameter` names and
//! one row of numbers per run.

use std::path::Path;

use super::Sets;
use crate::error::{Error, Result};

/// Reads the sets of `path`.
pub fn read(path: &Path) -> Result<Sets> {
    let invalid = |message: String| Error::input_file(path.to_path_buf(), message);
    let file = crate::files::open_data(path).map_err(|e| invalid(e.to_string()))?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(file);
    let names: Vec<String> = reader
        .headers()
        .map_err(|e| invalid(e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    if names.iter().all(String::is_empty) {
        return Err(invalid("no header of component.parameter names".into()));
    }
    let mut values = Vec::new();
    for (index, record) in reader.records().enumerate() {
        // Line 1 is the header.
        let line = index + 2;
        let record = record.map_err(|e| invalid(format!("line {line}: {e}")))?;
        let row = record
            .iter()
            .zip(&names)
            .map(|(cell, name)| {
                cell.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        invalid(format!(
                            "line {line}, column {name}: {cell:?} is not a finite number"
                        ))
                    })
            })
            .collect::<Result<Vec<f64>>>()?;
        values.push(row);
    }
    if values.is_empty() {
        return Err(invalid("no sets below the header".into()));
    }
    Ok(Sets {
        names,
        values,
        source: format!("--sets {}", path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_read_row_by_row_and_bad_cells_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sets.csv");
        std::fs::write(&path, "a.k, b.m\n1, 2.5\n3e2,4\n").unwrap();
        let sets = read(&path).unwrap();
        assert_eq!(sets.names, ["a.k", "b.m"]);
        assert_eq!(sets.values, [[1.0, 2.5], [300.0, 4.0]]);
        std::fs::write(&path, "a.k,b.m\n1,2\n3,x\n").unwrap();
        let message = read(&path).unwrap_err().to_string();
        assert!(
            message.contains("line 3, column b.m: \"x\" is not a finite number"),
            "{message}"
        );
        std::fs::write(&path, "a.k,b.m\n1,2,3\n").unwrap();
        let message = read(&path).unwrap_err().to_string();
        assert!(message.contains("line 2"), "{message}");
    }
}

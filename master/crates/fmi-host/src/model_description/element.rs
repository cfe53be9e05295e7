//! Names of array elements as result columns show them: `y[2]`, `A[2,3]`, 1-based indices in
//! row-major order, as FMPy names them.

/// The name of every element of the array `name` of shape `shape`, in row-major order (the
/// name itself for a scalar).
pub fn element_names(name: &str, shape: &[usize]) -> Vec<String> {
    if shape.is_empty() {
        return vec![name.to_string()];
    }
    let count: usize = shape.iter().product();
    (0..count)
        .map(|flat| {
            let indices: Vec<String> = unflatten(shape, flat)
                .into_iter()
                .map(|i| (i + 1).to_string())
                .collect();
            format!("{name}[{}]", indices.join(","))
        })
        .collect()
}

/// Splits `A[2,3]` into the array name and its 1-based indices; `None` for text that is not
/// of that form.
pub fn parse_element(text: &str) -> Option<(&str, Vec<usize>)> {
    let inner = text.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let (name, indices) = (&inner[..open], &inner[open + 1..]);
    if name.is_empty() {
        return None;
    }
    let indices = indices
        .split(',')
        .map(|i| i.trim().parse::<usize>().ok().filter(|&i| i >= 1))
        .collect::<Option<Vec<_>>>()?;
    Some((name, indices))
}

/// The names of a comma-separated list, where the commas inside brackets (`A[2,3]`) belong
/// to the name.
pub fn split_names(list: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                names.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    names.push(&list[start..]);
    names
}

/// The row-major position of the element at 1-based `indices` in an array of shape `shape`,
/// or `None` when the indices do not fit the shape.
pub fn flat_index(shape: &[usize], indices: &[usize]) -> Option<usize> {
    if indices.len() != shape.len() {
        return None;
    }
    indices
        .iter()
        .zip(shape)
        .try_fold(0, |flat, (&index, &size)| {
            (1..=size).contains(&index).then(|| flat * size + index - 1)
        })
}

/// The 0-based indices of the row-major position `flat` in an array of shape `shape`.
fn unflatten(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut indices = vec![0; shape.len()];
    for (index, &size) in indices.iter_mut().zip(shape).rev() {
        *index = flat % size;
        flat /= size;
    }
    indices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_named_one_based_in_row_major_order() {
        assert_eq!(element_names("y", &[3]), ["y[1]", "y[2]", "y[3]"]);
        assert_eq!(
            element_names("A", &[2, 3]),
            ["A[1,1]", "A[1,2]", "A[1,3]", "A[2,1]", "A[2,2]", "A[2,3]"]
        );
        assert_eq!(element_names("k", &[]), ["k"]);
        assert!(element_names("e", &[0]).is_empty());
    }

    #[test]
    fn element_names_parse_back_to_their_position() {
        assert_eq!(parse_element("y[2]"), Some(("y", vec![2])));
        assert_eq!(parse_element("A[2, 3]"), Some(("A", vec![2, 3])));
        assert_eq!(parse_element("a.b[1].c[4]"), Some(("a.b[1].c", vec![4])));
        for bad in ["y", "y[0]", "y[]", "[2]", "y[2", "y[a]", "y[-1]"] {
            assert_eq!(parse_element(bad), None, "{bad}");
        }
        assert_eq!(split_names("y,A[2,3],x[1]"), ["y", "A[2,3]", "x[1]"]);
        assert_eq!(split_names("v"), ["v"]);
        assert_eq!(flat_index(&[2, 3], &[2, 3]), Some(5));
        assert_eq!(flat_index(&[2, 3], &[1, 2]), Some(1));
        assert_eq!(flat_index(&[3], &[2]), Some(1));
        assert_eq!(flat_index(&[2, 3], &[3, 1]), None);
        assert_eq!(flat_index(&[2, 3], &[1]), None);
        for (flat, name) in element_names("A", &[2, 3]).iter().enumerate() {
            let (_, indices) = parse_element(name).unwrap();
            assert_eq!(flat_index(&[2, 3], &indices), Some(flat));
        }
    }
}

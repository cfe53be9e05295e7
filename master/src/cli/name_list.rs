//! Lists of variable names given to one option, separated by commas: a comma inside brackets
//! belongs to an array element's indices (`a.A[2,1]`), not to the list.

use crate::model_description::split_names;

/// The names of every value of a repeatable option, each value split at its commas outside
/// brackets; empty names (a trailing comma) are dropped.
pub fn split(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|value| split_names(value))
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn commas_in_brackets_stay_with_their_element() {
        let values = ["a.A[2,1],a.k".to_string(), " b.y[1] ,".to_string()];
        assert_eq!(split(&values), ["a.A[2,1]", "a.k", "b.y[1]"]);
        assert_eq!(
            split(&["a.w=2,b.y[1,2]=0.5".to_string()]),
            ["a.w=2", "b.y[1,2]=0.5"]
        );
    }
}

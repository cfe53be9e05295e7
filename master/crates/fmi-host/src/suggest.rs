//! "Did you mean …?" for names that are almost right: the known names closest to an unknown
//! one by edit distance, as cargo suggests subcommands.

/// At most this many suggestions.
const MOST: usize = 3;

/// The known names within a few edits of `name` (ignoring case), closest first.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    // As cargo: up to a third of the name's length in edits, at least one.
    let limit = (name.chars().count() / 3).max(1);
    let name = name.to_lowercase();
    let mut near: Vec<(usize, &str)> = known
        .into_iter()
        .map(|candidate| {
            let distance = strsim::damerau_levenshtein(&name, &candidate.to_lowercase());
            (distance, candidate)
        })
        .filter(|&(distance, _)| distance <= limit)
        .collect();
    near.sort();
    near.dedup_by_key(|&mut (_, candidate)| candidate);
    near.into_iter()
        .take(MOST)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// `; did you mean "a" or "b"?` with the known names closest to `name`, or an empty string: the
/// end of a message about an unknown name.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = closest(name, known)
        .iter()
        .map(|candidate| format!("\"{candidate}\""))
        .collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [first @ .., last] => format!("; did you mean {} or {last}?", first.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 6] = ["mass.s", "mass.v", "mass.a", "spring.k", "damper.d", "time"];

    #[test]
    fn near_names_are_suggested_closest_first() {
        assert_eq!(closest("mass.x", NAMES), ["mass.a", "mass.s", "mass.v"]);
        assert_eq!(
            closest("sprnig.k", NAMES),
            ["spring.k"],
            "a transposition is one edit"
        );
        assert_eq!(closest("Spring.K", NAMES), ["spring.k"], "case is ignored");
        assert_eq!(closest("tme", NAMES), ["time"]);
        assert!(closest("pendulum.phi", NAMES).is_empty(), "nothing near");
        assert!(closest("x", NAMES).is_empty());
    }

    #[test]
    fn suggestions_read_as_a_sentence() {
        assert_eq!(
            did_you_mean("sprng.k", NAMES),
            "; did you mean \"spring.k\"?"
        );
        assert_eq!(
            did_you_mean("mass.x", NAMES),
            "; did you mean \"mass.a\", \"mass.s\" or \"mass.v\"?"
        );
        assert_eq!(did_you_mean("pendulum.phi", NAMES), "");
    }
}

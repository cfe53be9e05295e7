//! Mutations of a valid input, byte-level and structure-aware: the inputs are XML and TOML
//! texts, so besides flipping and splicing bytes the mutator removes, duplicates and moves
//! elements and lines, and puts values at the edges of what a reader must handle (empty, huge,
//! negative, non-finite, wrong type) into attributes and keys.

use rand::seq::IndexedRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Values a reader is likely to mishandle, put in place of an attribute or TOML value.
const EDGE_VALUES: &[&str] = &[
    "",
    "0",
    "-1",
    "-0",
    "1e309",
    "-1e309",
    "NaN",
    "INF",
    "-INF",
    "4294967295",
    "4294967296",
    "-2147483649",
    "18446744073709551616",
    "0x10",
    "1.5",
    "true",
    "yes",
    "\u{feff}",
    "a b",
    "&amp;",
    "&#0;",
    "&#xD800;",
    "]]>",
    "\"",
    "'",
    "\\",
    "x[1]",
    "der(x)",
    "..",
    "../x",
    "9999999999999999999999999999",
    "1e-400",
    "+",
    "name with spaces",
    "\u{0}",
];

/// Fragments inserted at random places: markup and TOML syntax that readers must reject.
const FRAGMENTS: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "<!--",
    "-->",
    "<![CDATA[",
    "<?xml version=\"1.0\"?>",
    "=",
    "\"",
    "'",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    "\n",
    "#",
    "\u{0}",
    "\u{feff}",
    " x=\"1\"",
    "&",
    "&lt;",
    "<!DOCTYPE a [<!ENTITY e \"eeeeeeeeee\">]>",
    "&e;",
];

/// Applies 1 to 8 random mutations to `input`; `others` are inputs to splice from.
pub fn mutate(rng: &mut ChaCha8Rng, input: &mut Vec<u8>, others: &[&[u8]]) {
    for _ in 0..rng.random_range(1..=8) {
        match rng.random_range(0..12) {
            0 => flip_bit(rng, input),
            1 => set_byte(rng, input),
            2 => delete_range(rng, input),
            3 => duplicate_range(rng, input),
            4 => {
                let fragment = FRAGMENTS.choose(rng).expect("not empty");
                insert(rng, input, fragment.as_bytes())
            }
            5 => splice(rng, input, others),
            6 => replace_quoted(rng, input),
            7 => element(rng, input, false),
            8 => element(rng, input, true),
            9 => lines(rng, input),
            10 => replace_toml_value(rng, input),
            _ => truncate(rng, input),
        }
    }
}

fn position(rng: &mut ChaCha8Rng, input: &[u8]) -> usize {
    rng.random_range(0..=input.len())
}

/// A random range `start..end` of at most `max` bytes.
fn range(rng: &mut ChaCha8Rng, input: &[u8], max: usize) -> (usize, usize) {
    let start = position(rng, input);
    let end = (start + rng.random_range(0..=max)).min(input.len());
    (start, end)
}

fn flip_bit(rng: &mut ChaCha8Rng, input: &mut [u8]) {
    if !input.is_empty() {
        let i = rng.random_range(0..input.len());
        input[i] ^= 1 << rng.random_range(0..8);
    }
}

fn set_byte(rng: &mut ChaCha8Rng, input: &mut [u8]) {
    if !input.is_empty() {
        let i = rng.random_range(0..input.len());
        input[i] = *[0u8, 0xff, 0x7f, 0x80, b'<', b'"', b'=', b'9', b'-', b'.']
            .choose(rng)
            .expect("not empty");
    }
}

fn delete_range(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let (start, end) = range(rng, input, 64);
    input.drain(start..end);
}

fn duplicate_range(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let (start, end) = range(rng, input, 256);
    let copy = input[start..end].to_vec();
    let at = position(rng, input);
    input.splice(at..at, copy);
}

fn insert(rng: &mut ChaCha8Rng, input: &mut Vec<u8>, bytes: &[u8]) {
    let at = position(rng, input);
    input.splice(at..at, bytes.iter().copied());
}

/// Replaces a random stretch of `input` with a stretch of another input.
fn splice(rng: &mut ChaCha8Rng, input: &mut Vec<u8>, others: &[&[u8]]) {
    let Some(other) = others.choose(rng) else {
        return;
    };
    let (from, to) = range(rng, other, 512);
    let (start, end) = range(rng, input, 512);
    input.splice(start..end, other[from..to].iter().copied());
}

fn truncate(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let at = position(rng, input);
    input.truncate(at);
}

/// The start offsets of every occurrence of `byte`.
fn offsets(input: &[u8], byte: u8) -> Vec<usize> {
    input
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == byte)
        .map(|(i, _)| i)
        .collect()
}

/// Replaces the text between a random pair of consecutive double quotes (an attribute value,
/// most often) with an edge value.
fn replace_quoted(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let quotes = offsets(input, b'"');
    if quotes.len() < 2 {
        return;
    }
    let k = rng.random_range(0..quotes.len() - 1);
    let value = EDGE_VALUES.choose(rng).expect("not empty").as_bytes();
    input.splice(quotes[k] + 1..quotes[k + 1], value.iter().copied());
}

/// Replaces what follows a random `=` up to the end of its line (a TOML value, most often).
fn replace_toml_value(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let equals = offsets(input, b'=');
    let Some(&at) = equals.choose(rng) else {
        return;
    };
    let end = input[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(input.len(), |n| at + n);
    let value = match rng.random_range(0..3) {
        0 => format!(
            " \"{}\"",
            EDGE_VALUES.choose(rng).expect("not empty").escape_default()
        ),
        1 => format!(" {}", EDGE_VALUES.choose(rng).expect("not empty")),
        _ => " [1, \"a\", {}]".to_owned(),
    };
    input.splice(at + 1..end, value.into_bytes());
}

/// Deletes (or duplicates, when `duplicate`) the markup from a random `<` to its matching
/// `>`, or to the end of the element it opens when that closes within a few kilobytes.
fn element(rng: &mut ChaCha8Rng, input: &mut Vec<u8>, duplicate: bool) {
    let opens = offsets(input, b'<');
    let Some(&start) = opens.choose(rng) else {
        return;
    };
    let Some(tag_end) = input[start..]
        .iter()
        .position(|&b| b == b'>')
        .map(|n| start + n + 1)
    else {
        return;
    };
    let name: Vec<u8> = input[start + 1..tag_end]
        .iter()
        .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'>' | b'/'))
        .copied()
        .collect();
    let mut end = tag_end;
    if !name.is_empty() && input[tag_end - 2] != b'/' {
        let mut closing = b"</".to_vec();
        closing.extend_from_slice(&name);
        let window = &input[tag_end..(tag_end + 8192).min(input.len())];
        if let Some(n) = window
            .windows(closing.len())
            .position(|w| w == closing.as_slice())
        {
            let close = tag_end + n;
            end = input[close..]
                .iter()
                .position(|&b| b == b'>')
                .map_or(input.len(), |m| close + m + 1);
        }
    }
    if duplicate {
        let copy = input[start..end].to_vec();
        input.splice(end..end, copy);
    } else {
        input.drain(start..end);
    }
}

/// Deletes, duplicates or swaps whole lines.
fn lines(rng: &mut ChaCha8Rng, input: &mut Vec<u8>) {
    let text: Vec<Vec<u8>> = input.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let mut text = text;
    if text.len() < 2 {
        return;
    }
    let (a, b) = (
        rng.random_range(0..text.len()),
        rng.random_range(0..text.len()),
    );
    match rng.random_range(0..3) {
        0 => {
            text.remove(a);
        }
        1 => {
            let line = text[a].clone();
            text.insert(b, line);
        }
        _ => text.swap(a, b),
    }
    *input = text.join(&b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_same_seed_gives_the_same_mutants_and_mutants_differ_from_the_input() {
        let input = b"<a x=\"1\">\n  <b y=\"2\"/>\n</a>\nk = 3\n".to_vec();
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..50)
                .map(|_| {
                    let mut m = input.clone();
                    mutate(&mut rng, &mut m, &[b"<c/>"]);
                    m
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().filter(|m| **m != input).count() > 40);
    }

    #[test]
    fn element_removal_takes_the_whole_element() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..20 {
            let mut input = b"<a><b>text</b></a>".to_vec();
            element(&mut rng, &mut input, false);
            let kept = String::from_utf8(input).unwrap();
            assert!(
                ["", "<a></a>", "<a><b>text</a>", "<a><b>text</b>"].contains(&kept.as_str()),
                "{kept}"
            );
        }
    }
}

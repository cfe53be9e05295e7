//! The text of a float in result files and messages: the shortest digits that read back to
//! the same value, laid out as Rust's `{}` and `{:e}` would. Kept apart from the result
//! writers because error messages print numbers the same way.

use std::io::Write;

/// Shortest text that reads back to the same f64, in exponent form for very large or small
/// magnitudes.
pub fn format_float(value: f64) -> String {
    let mut text = Vec::with_capacity(24);
    write_float(&mut text, value);
    String::from_utf8(text).expect("numbers are ASCII")
}

/// Appends [`format_float`]'s text of `value`: the shortest digits that read back to the same
/// f64 (from `ryu`), laid out as plain decimals for magnitudes in [1e-4, 1e15) and as
/// `d.ddde±x` outside, as Rust's `{}` and `{:e}` would (ryu's own layout switches at other
/// magnitudes).
pub fn write_float(out: &mut Vec<u8>, value: f64) {
    if !value.is_finite() || value == 0.0 {
        // Rare: not worth a fast path.
        let _ = write!(out, "{value}");
        return;
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(value).as_bytes();
    if (1e-4..1e15).contains(&value.abs()) {
        // ryu writes plain decimals from 1e-5 to 1e16, and whole numbers with ".0".
        out.extend_from_slice(text.strip_suffix(b".0").unwrap_or(text));
        return;
    }
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    // Outside the plain range ryu writes `ddd.ddd` (1e-5 to 1e-4, 1e15 to 1e16) or
    // `d.ddde±x`: collect the significant digits and the power of ten of the first one.
    let (mantissa, exponent) = match text.iter().position(|&c| c == b'e') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 24];
    let mut count = 0;
    let mut point = mantissa.len() as i32;
    for (i, &c) in mantissa.iter().enumerate() {
        if c == b'.' {
            point = i as i32;
        } else {
            digits[count] = c;
            count += 1;
        }
    }
    let leading = digits[..count].iter().take_while(|&&d| d == b'0').count();
    let trailing = digits[leading..count]
        .iter()
        .rev()
        .take_while(|&&d| d == b'0')
        .count();
    let significant = &digits[leading..count - trailing];
    // value = 0.significant * 10^power
    let power = point - leading as i32 + exponent;
    if negative {
        out.push(b'-');
    }
    out.push(significant[0]);
    if significant.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&significant[1..]);
    }
    out.push(b'e');
    let mut number = itoa::Buffer::new();
    out.extend_from_slice(number.format(power - 1).as_bytes());
}

/// The exponent after ryu's `e`: an optional minus and decimal digits.
fn parse_exponent(text: &[u8]) -> i32 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        _ => (1, text),
    };
    sign * digits
        .iter()
        .fold(0, |acc, &d| acc * 10 + i32::from(d - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the result files had before numbers went through ryu.
    fn display_layout(value: f64) -> String {
        let magnitude = value.abs();
        if value == 0.0 || (1e-4..1e15).contains(&magnitude) || !value.is_finite() {
            format!("{value}")
        } else {
            format!("{value:e}")
        }
    }

    #[test]
    fn floats_read_back_exactly_and_are_laid_out_as_rust_formats_them() {
        let mut samples = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1e-4,
            9.999e-5,
            1e15,
            999999999999999.9,
            1e-7,
            1.5e20,
            123.456,
            1e300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.001,
            100.0,
            1e14,
            2.5e-4,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // A fixed-seed xorshift over bit patterns covers every exponent.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for k in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            samples.push(f64::from_bits(state));
            // And ordinary magnitudes, around the layout's switches at 1e-4 and 1e15.
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            samples.push((unit - 0.5) * 10f64.powi(k % 22 - 6));
        }
        for value in samples {
            let (text, rust) = (format_float(value), display_layout(value));
            let bits = value.to_bits();
            if value.is_finite() {
                assert_eq!(text.parse::<f64>().unwrap().to_bits(), bits, "{text}");
            }
            if text != rust {
                // Both are shortest; of two equally short texts ryu and Rust may pick either.
                assert_eq!(text.len(), rust.len(), "bits {bits:x}: {text} vs {rust}");
                assert_eq!(text.contains('e'), rust.contains('e'), "bits {bits:x}");
                assert_eq!(text.parse::<f64>().unwrap(), rust.parse::<f64>().unwrap());
            }
        }
    }
}

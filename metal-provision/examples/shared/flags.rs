//! Command-line value parsers shared by the examples (`provision`, `soak`).

/// A probability in [0, 1], for clap's `value_parser`.
pub fn parse_probability(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .parse()
        .map_err(|e| format!("{text:?} is not a number: {e}"))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{text} is not a probability in [0, 1]"));
    }
    Ok(p)
}

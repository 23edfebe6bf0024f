//! How similar two texts are, within a budget of character comparisons.

/// Character comparisons one call may spend scoring matches; past it scores are line-level.
pub(crate) const SCORE_CELLS: usize = 20_000_000;

/// Character-level similarity from 0.0 to 1.0, estimated line by line for very long inputs or
/// once `cells` (character comparisons left) runs out.
pub(crate) fn similarity(a: &str, b: &str, cells: &mut usize) -> f64 {
    const MAX_CELLS: usize = 1_000_000;
    if a == b {
        return 1.0;
    }
    let needed = a.len().saturating_mul(b.len());
    if needed <= MAX_CELLS && needed <= *cells {
        *cells -= needed;
        return strsim::normalized_levenshtein(a, b);
    }
    let a_lines: Vec<&str> = a.split('\n').map(str::trim).collect();
    let b_lines: Vec<&str> = b.split('\n').map(str::trim).collect();
    let equal = a_lines.iter().zip(&b_lines).filter(|(x, y)| x == y).count();
    equal as f64 / a_lines.len().max(b_lines.len()) as f64
}

//! What a run found for each server, as a markdown table (printed) and an SVG chart.

use std::fmt::Write as _;
use std::time::Duration;

use crate::load::{Era, Segment};

/// Everything measured for one server over all passes.
pub struct Measured {
    pub label: String,
    pub era: Era,
    pub flows: u64,
    pub errors: u64,
    pub first_errors: Vec<String>,
    pub rounds: Vec<u32>,
    pub elapsed: Duration,
    pub cpu: Duration,
    /// flows/s of each pass, for the spread.
    pub per_pass: Vec<f64>,
}

impl Measured {
    pub fn new(label: &str, era: Era) -> Self {
        Self {
            label: label.to_owned(),
            era,
            flows: 0,
            errors: 0,
            first_errors: Vec::new(),
            rounds: Vec::new(),
            elapsed: Duration::ZERO,
            cpu: Duration::ZERO,
            per_pass: Vec::new(),
        }
    }

    /// Adds one pass: the load generator's segment and the server CPU spent during it.
    pub fn add(&mut self, segment: Segment, cpu: Duration) {
        self.per_pass
            .push(segment.flows as f64 / segment.elapsed.as_secs_f64());
        self.flows += segment.flows;
        self.errors += segment.errors;
        self.rounds.extend(segment.rounds);
        self.elapsed += segment.elapsed;
        self.cpu += cpu;
        for error in segment.first_errors {
            if self.first_errors.len() < 3 {
                self.first_errors.push(error);
            }
        }
    }

    pub fn flows_per_second(&self) -> f64 {
        self.flows as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Server CPU per complete flow, microseconds.
    pub fn cpu_per_flow_us(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.flows.max(1) as f64
    }

    /// A round-latency percentile, milliseconds.
    pub fn percentile_ms(&mut self, p: f64) -> f64 {
        if self.rounds.is_empty() {
            return f64::NAN;
        }
        self.rounds.sort_unstable();
        let index = ((self.rounds.len() - 1) as f64 * p).round() as usize;
        f64::from(self.rounds[index]) / 1000.0
    }

    fn spread(&self) -> (f64, f64) {
        let min = self.per_pass.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.per_pass.iter().copied().fold(0.0, f64::max);
        (min, max)
    }
}

/// The markdown table: one row per server; ratios against the first server of the same era,
/// over the whole run and pass by pass.
pub fn table(results: &mut [Measured]) -> String {
    let mut out = String::new();
    out.push_str("| server | era | flows/s | spread over passes | round p50 | round p99 | server CPU per flow | mrtr ÷ this (flows/s) | per pass: median (range) | errors |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    let references: Vec<usize> = first_of_each_era(results);
    for index in 0..results.len() {
        let reference = references
            .iter()
            .map(|&first| &results[first])
            .find(|first| first.era == results[index].era);
        let ratio = reference.map_or(f64::NAN, |first| {
            first.flows_per_second() / results[index].flows_per_second().max(f64::MIN_POSITIVE)
        });
        let per_pass = reference
            .and_then(|first| PassRatios::of(first, &results[index]))
            .map_or_else(
                || "—".to_owned(),
                |ratios| {
                    format!(
                        "{:.2}× ({:.2}–{:.2})",
                        ratios.median, ratios.low, ratios.high
                    )
                },
            );
        let result = &mut results[index];
        let (p50, p99) = (result.percentile_ms(0.50), result.percentile_ms(0.99));
        let (low, high) = result.spread();
        let _ = writeln!(
            out,
            "| {} | {} | {:.0} | {:.0}–{:.0} | {:.2} ms | {:.2} ms | {:.0} µs | {:.2}× | {} | {} |",
            result.label,
            era_name(result.era),
            result.flows_per_second(),
            low,
            high,
            p50,
            p99,
            result.cpu_per_flow_us(),
            ratio,
            per_pass,
            result.errors,
        );
    }
    out
}

/// The ratio of `reference`'s flows/s to a server's within each pass, summarised. Every pass
/// drives every server in turn, seconds apart, so a pass's ratio compares two turns under nearly
/// the same load on the machine: the range is the ratio's own spread, which the spreads of the
/// two servers' flows/s over the whole run overstate, and the median is the ratio a drifting
/// host moves least (the whole run's ratio leans towards the passes where the host was fast).
struct PassRatios {
    median: f64,
    low: f64,
    high: f64,
}

impl PassRatios {
    fn of(reference: &Measured, result: &Measured) -> Option<Self> {
        let mut ratios: Vec<f64> = reference
            .per_pass
            .iter()
            .zip(&result.per_pass)
            .filter(|(_, theirs)| **theirs > 0.0)
            .map(|(ours, theirs)| ours / theirs)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let (&low, &high) = (ratios.first()?, ratios.last()?);
        let middle = ratios.len() / 2;
        let median = if ratios.len() % 2 == 1 {
            ratios[middle]
        } else {
            (ratios[middle - 1] + ratios[middle]) / 2.0
        };
        Some(Self { median, low, high })
    }
}

/// The index of the first server of each era.
fn first_of_each_era(results: &[Measured]) -> Vec<usize> {
    let mut seen: Vec<usize> = Vec::new();
    for (index, result) in results.iter().enumerate() {
        if !seen.iter().any(|&first| results[first].era == result.era) {
            seen.push(index);
        }
    }
    seen
}

pub fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "2026-07-28",
        Era::Legacy => "legacy session",
    }
}

/// One bar: its value and, for flows/s, the spread over passes.
type Bar = (f64, Option<(f64, f64)>);

/// A chart panel: its caption and what it plots for a server.
type Panel = (&'static str, fn(&Measured) -> Bar);

/// Two horizontal bar panels: flows/s (with the spread over passes) and server CPU per flow.
pub fn chart(results: &[Measured], title: &str) -> String {
    const WIDTH: f64 = 760.0;
    const LABEL: f64 = 250.0;
    const BAR: f64 = 22.0;
    const GAP: f64 = 10.0;
    let rows = results.len() as f64;
    let panel_height = rows * (BAR + GAP) + 40.0;
    let height = 50.0 + 2.0 * panel_height;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="10" y="24" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let panels: [Panel; 2] = [
        (
            "complete flows per second (higher is better; whisker: spread over passes)",
            |m| (m.flows_per_second(), Some(m.spread())),
        ),
        ("server CPU per flow, µs (lower is better)", |m| {
            (m.cpu_per_flow_us(), None)
        }),
    ];
    for (index, (caption, value)) in panels.iter().enumerate() {
        let top = 50.0 + index as f64 * panel_height;
        let _ = writeln!(
            svg,
            r#"<text x="10" y="{}" font-weight="bold">{}</text>"#,
            top + 14.0,
            escape(caption)
        );
        let values: Vec<Bar> = results.iter().map(value).collect();
        let max = values
            .iter()
            .map(|(v, spread)| spread.map_or(*v, |(_, high)| high.max(*v)))
            .fold(1.0, f64::max);
        let scale = (WIDTH - LABEL - 90.0) / max;
        for (row, (result, (value, spread))) in results.iter().zip(&values).enumerate() {
            let y = top + 26.0 + row as f64 * (BAR + GAP);
            let colour = colour(&result.label);
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="end">{} ({})</text>"#,
                LABEL - 8.0,
                y + BAR * 0.7,
                escape(&result.label),
                era_name(result.era)
            );
            let _ = writeln!(
                svg,
                r#"<rect x="{LABEL}" y="{y}" width="{:.1}" height="{BAR}" fill="{colour}"/>"#,
                value * scale
            );
            if let Some((low, high)) = spread {
                let mid = y + BAR / 2.0;
                let _ = writeln!(
                    svg,
                    r#"<line x1="{:.1}" y1="{mid}" x2="{:.1}" y2="{mid}" stroke="black"/>"#,
                    LABEL + low * scale,
                    LABEL + high * scale
                );
            }
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{}">{:.0}</text>"#,
                LABEL + value.max(spread.map_or(0.0, |s| s.1)) * scale + 6.0,
                y + BAR * 0.7,
                value
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn colour(label: &str) -> &'static str {
    let label = label.to_ascii_lowercase();
    if label.contains("mrtr") {
        "#d9480f"
    } else if label.contains("rmcp") {
        "#868e96"
    } else if label.contains("python") {
        "#1c7ed6"
    } else {
        "#2b8a3e"
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(label: &str, era: Era, per_pass: &[f64]) -> Measured {
        let mut measured = Measured::new(label, era);
        measured.per_pass = per_pass.to_vec();
        measured.flows = per_pass.iter().sum::<f64>() as u64;
        measured.elapsed = Duration::from_secs(per_pass.len() as u64);
        measured
    }

    #[test]
    fn each_row_reads_its_ratio_to_the_first_of_its_era_pass_by_pass() {
        let mut results = [
            measured("mrtr", Era::Modern, &[100.0, 90.0, 110.0]),
            measured("by hand", Era::Modern, &[125.0, 90.0, 100.0]),
            measured("legacy mrtr", Era::Legacy, &[50.0]),
            measured("legacy by hand", Era::Legacy, &[40.0]),
        ];
        let table = table(&mut results);
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert!(
            rows[0].contains("| 1.00× | 1.00× (1.00–1.00) |"),
            "{}",
            rows[0]
        );
        // 300 against 315 flows over 3 s; per pass 0.80, 1.00 and 1.10.
        assert!(
            rows[1].contains("| 0.95× | 1.00× (0.80–1.10) |"),
            "{}",
            rows[1]
        );
        assert!(
            rows[3].contains("| 1.25× | 1.25× (1.25–1.25) |"),
            "{}",
            rows[3]
        );
    }

    #[test]
    fn an_even_number_of_passes_takes_the_mean_of_the_middle_two() {
        let mut results = [
            measured("mrtr", Era::Modern, &[100.0, 90.0, 120.0, 80.0]),
            measured("by hand", Era::Modern, &[100.0, 100.0, 100.0, 100.0]),
        ];
        let table = table(&mut results);
        // Per pass 1.00, 0.90, 1.20 and 0.80: the middle two are 0.90 and 1.00.
        assert!(
            table
                .lines()
                .nth(3)
                .unwrap()
                .contains("| 0.95× (0.80–1.20) |"),
            "{table}"
        );
    }
}

//! The text a person reads for a `metrics` history: one line per metric
//! with a sparkline and min/avg/max/latest, e.g.
//!
//! ```text
//! memory of web (vm:pve1:101), past week:
//!   memory  ▂▃▃▄▅▆▇█▇▆  min 31.2 %  avg 45.0 %  max 88.1 %  latest 40.3 %
//! ```
//!
//! Pure: the CLI, the router and the web UI call [`render_history`] on the
//! `data` of a successful `metrics` call with a `range`.

use serde_json::Value;

/// Characters a sparkline is drawn with, lowest to highest.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The widest sparkline drawn.
pub const SPARKLINE_WIDTH: usize = 40;

/// A sparkline of `values`: at most `width` characters (bucket means),
/// scaled between the smallest and the largest; a flat series is all `▄`.
pub fn sparkline(values: &[f64], width: usize) -> String {
    let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let buckets = values.len().min(width);
    let means: Vec<f64> = (0..buckets)
        .map(|b| {
            let start = b * values.len() / buckets;
            let end = ((b + 1) * values.len() / buckets).max(start + 1);
            values[start..end].iter().sum::<f64>() / (end - start) as f64
        })
        .collect();
    let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    means
        .iter()
        .map(|v| {
            if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
                BARS[3]
            } else {
                let level = ((v - lo) / (hi - lo) * (BARS.len() - 1) as f64).round();
                BARS[(level.max(0.0) as usize).min(BARS.len() - 1)]
            }
        })
        .collect()
}

/// A value with its unit: `45.0 %`, `1.2 MiB/s`, `0.42`.
pub fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "%" => format!("{value:.1} %"),
        "B/s" | "B" => {
            let suffix = unit.trim_start_matches('B');
            let mut scaled = value;
            let mut prefix = 0;
            const PREFIXES: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
            while scaled.abs() >= 1024.0 && prefix < PREFIXES.len() - 1 {
                scaled /= 1024.0;
                prefix += 1;
            }
            format!("{scaled:.1} {}{suffix}", PREFIXES[prefix])
        }
        "" => format!("{value:.2}"),
        other => format!("{value:.2} {other}"),
    }
}

/// The lines for a `metrics` history result (`{target, name?, range,
/// series: [{metric, unit, average: [{t, v}], summary: {min, avg, max,
/// latest: {t, v}}}]}`), or `None` when `data` is not one.
pub fn render_history(data: &Value) -> Option<String> {
    let series = data.get("series")?.as_array()?;
    let range = data["range"].as_str().unwrap_or("range");
    let target = data["target"].as_str().unwrap_or("?");
    let subject = match data["name"].as_str() {
        Some(name) => format!("{name} ({target})"),
        None => target.to_string(),
    };
    let width = series
        .iter()
        .filter_map(|s| s["metric"].as_str())
        .map(str::len)
        .max()
        .unwrap_or(0);
    let mut out = format!("{subject}, past {range}:\n");
    if series.is_empty() {
        out.push_str("  no metrics in this range\n");
    }
    for entry in series {
        let metric = entry["metric"].as_str().unwrap_or("?");
        let unit = entry["unit"].as_str().unwrap_or("");
        let values: Vec<f64> = entry["average"]
            .as_array()
            .map(|points| points.iter().filter_map(|p| p["v"].as_f64()).collect())
            .unwrap_or_default();
        let summary = &entry["summary"];
        let line = match (
            summary["min"].as_f64(),
            summary["avg"].as_f64(),
            summary["max"].as_f64(),
            summary["latest"]["v"].as_f64(),
        ) {
            (Some(min), Some(avg), Some(max), Some(latest)) => format!(
                "{}  min {}  avg {}  max {}  latest {}",
                sparkline(&values, SPARKLINE_WIDTH),
                format_value(min, unit),
                format_value(avg, unit),
                format_value(max, unit),
                format_value(latest, unit),
            ),
            _ => "no samples in this range".to_string(),
        };
        out.push_str(&format!("  {metric:<width$}  {line}\n"));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sparklines_scale_between_the_extremes() {
        let cases: &[(&[f64], usize, &str)] = &[
            (&[], 10, ""),
            (&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], 10, "▁▂▃▄▅▆▇█"),
            (&[5.0, 5.0, 5.0], 10, "▄▄▄"),
            (&[0.0, 10.0, 0.0, 10.0], 2, "▄▄"),
            (&[0.0, 0.0, 10.0, 10.0], 2, "▁█"),
            (&[0.0, f64::NAN, 10.0], 10, "▁█"),
        ];
        for (values, width, want) in cases {
            assert_eq!(sparkline(values, *width), *want, "{values:?}");
        }
        assert_eq!(sparkline(&vec![1.0; 500], 40).chars().count(), 40);
    }

    #[test]
    fn values_carry_their_unit() {
        assert_eq!(format_value(45.04, "%"), "45.0 %");
        assert_eq!(format_value(1536.0, "B/s"), "1.5 KiB/s");
        assert_eq!(format_value(3.0 * 1024.0 * 1024.0, "B/s"), "3.0 MiB/s");
        assert_eq!(format_value(12.0, "B/s"), "12.0 B/s");
        assert_eq!(format_value(0.4242, ""), "0.42");
    }

    #[test]
    fn one_line_per_metric_with_the_numbers() {
        let data = json!({
            "target": "vm:pve1:101", "name": "web", "range": "week",
            "series": [
                {"metric": "memory", "unit": "%",
                 "average": [{"t": 1, "v": 30.0}, {"t": 2, "v": 60.0}, {"t": 3, "v": 40.0}],
                 "summary": {"min": 30.0, "avg": 43.3, "max": 88.1, "latest": {"t": 3, "v": 40.0}, "samples": 3}},
                {"metric": "netin", "unit": "B/s", "average": [], "summary": null}
            ]
        });
        let text = render_history(&data).unwrap();
        assert_eq!(
            text,
            "web (vm:pve1:101), past week:\n  memory  ▁█▃  min 30.0 %  avg 43.3 %  max 88.1 %  latest 40.0 %\n  netin   no samples in this range\n"
        );
        assert!(render_history(&json!({"stdout": "x"})).is_none());
    }
}

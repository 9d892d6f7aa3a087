//! `crio-pin-bench-plot RESULTS.tsv TABLE.md OUT.png`: ns per name against
//! pinned-list size, for crio-pin and the reference engine, log-log.

use std::collections::BTreeMap;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

type Series = BTreeMap<usize, (f64, bool)>;

fn series(tsv: &str, figure: &str, engine: &str) -> Series {
    let mut out = Series::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() >= 6 && cols[0] == figure && cols[1] == engine {
            if let (Ok(size), Ok(value)) = (cols[2].parse(), cols[3].parse()) {
                out.insert(size, (value, cols[5] == "true"));
            }
        }
    }
    out
}

/// Two significant digits: 46 ns, 1.5 µs, 15 ms, 190 ms.
fn label(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if v < 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, results, table, out] = &args[..] else {
        eprintln!("usage: crio-pin-bench-plot RESULTS.tsv TABLE.md OUT.png");
        std::process::exit(2);
    };
    register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "cannot load the bundled font")?;
    register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold()).map_err(|_| "cannot load the bundled font")?;
    let tsv = std::fs::read_to_string(results)?;
    let table = std::fs::read_to_string(table)?;
    let machine = table.lines().find_map(|l| l.strip_prefix("- Machine: ")).unwrap_or("").to_owned();

    let fast = series(&tsv, "match ns/name", "crio-pin");
    let fast_index = series(&tsv, "match_index ns/name", "crio-pin");
    let fast_each = series(&tsv, "match_each ns/name (C ABI)", "crio-pin");
    let slow = series(&tsv, "match ns/name", "reference");
    if fast.is_empty() || slow.is_empty() {
        return Err("no 'match ns/name' figures in the results".into());
    }
    let xmax = *fast.keys().chain(slow.keys()).max().unwrap_or(&100_000) as f64 * 2.0;
    let all: Vec<f64> = fast.values().chain(slow.values()).chain(fast_index.values()).map(|v| v.0).collect();
    let ymin = all.iter().copied().fold(f64::INFINITY, f64::min) / 2.0;
    let ymax = all.iter().copied().fold(0.0, f64::max) * 4.0;

    let root = BitMapBackend::new(out, (1000, 660)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, foot) = root.split_vertically(635);
    let (title, body) = top.split_vertically(70);
    title.draw(&Text::new(
        "crio-pin: ns per image name against pinned-list size",
        (20, 12),
        ("sans-serif", 24).into_font().style(FontStyle::Bold),
    ))?;
    title.draw(&Text::new(machine.clone(), (20, 44), ("sans-serif", 14).into_font().color(&RGBColor(90, 90, 90))))?;

    let mut chart = ChartBuilder::on(&body)
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d((0.5f64..xmax).log_scale(), (ymin..ymax).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("patterns in the pinned list")
        .y_desc("time per name (log)")
        .x_label_formatter(&|x| {
            let x = x.round() as u64;
            if x >= 1000 {
                format!("{}k", x / 1000)
            } else {
                x.to_string()
            }
        })
        .y_label_formatter(&|y| label(*y))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;

    let blue = RGBColor(31, 119, 180);
    let red = RGBColor(214, 39, 40);
    let teal = RGBColor(44, 160, 44);
    let grey = RGBColor(150, 150, 150);
    let pts = |s: &Series| s.iter().map(|(k, v)| (*k as f64, v.0)).collect::<Vec<_>>();

    chart
        .draw_series(LineSeries::new(pts(&slow), red.stroke_width(3)))?
        .label("reference engine (CRI-O's loop: one regex per pattern), match")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], red.stroke_width(3)));
    chart.draw_series(slow.iter().map(|(k, (v, sampled))| {
        let style = if *sampled { red.stroke_width(2) } else { red.filled() };
        Circle::new((*k as f64, *v), 5, style)
    }))?;
    chart
        .draw_series(LineSeries::new(pts(&fast), blue.stroke_width(3)))?
        .label("crio-pin, match")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], blue.stroke_width(3)));
    chart.draw_series(fast.iter().map(|(k, (v, _))| Circle::new((*k as f64, *v), 5, blue.filled())))?;
    if !fast_index.is_empty() {
        chart
            .draw_series(LineSeries::new(pts(&fast_index), teal.stroke_width(1)))?
            .label("crio-pin, match_index")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], teal.stroke_width(1)));
    }
    if !fast_each.is_empty() {
        chart
            .draw_series(LineSeries::new(pts(&fast_each), grey.stroke_width(1)))?
            .label("crio-pin, match_each (C ABI, one node)")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], grey.stroke_width(1)));
    }
    // Value labels.
    for (s, color, dy) in [(&fast, blue, 12), (&slow, red, -22)] {
        chart.draw_series(s.iter().map(|(k, (v, sampled))| {
            let text = format!("{}{}", label(*v), if *sampled { "†" } else { "" });
            EmptyElement::at((*k as f64, *v)) + Text::new(text, (6, dy), ("sans-serif", 13).into_font().color(&color))
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", 14))
        .draw()?;
    foot.draw(&Text::new(
        "Criterion medians; the reference engine (CRI-O's loop) up to 1,000 patterns. Data: make bench (docs/BENCHMARKS.md).",
        (120, 2),
        ("sans-serif", 12).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    root.present()?;
    eprintln!("wrote {out}");
    Ok(())
}

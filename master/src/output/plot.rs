//! Plots of signals against time, as PNG or SVG (chosen by the file extension): one panel
//! per signal stacked over a shared time axis, or all signals in one panel with a legend, or
//! panels of signals drawn as lines, dashed lines or markers.
//!
//! Text is drawn with the DejaVu Sans font embedded in the binary, so plots render the same on
//! a machine without any system fonts. Non-finite samples (a run that failed with NaN) leave
//! gaps in the lines instead of breaking the plot.

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::drawing_error::{describe, BackendError};
use crate::error::{Error, Result};

/// Signals sampled at common times.
#[derive(Debug, Clone)]
pub struct TimeSeries<'a> {
    /// The sample times.
    pub time: &'a [f64],
    /// Each signal's name (with its unit, if wanted) and samples, one per time.
    pub columns: Vec<(&'a str, &'a [f64])>,
}

/// How the signals are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// One panel per signal, stacked over a shared time axis.
    #[default]
    Stacked,
    /// All signals in one panel, with a legend.
    Overlay,
}

/// How a signal is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mark {
    /// A solid line.
    #[default]
    Line,
    /// A dashed line.
    Dashed,
    /// A marker at every sample, unconnected.
    Markers,
}

/// One signal of a panel.
#[derive(Debug, Clone, Copy)]
pub struct Signal<'a> {
    /// Its name, in the legend (or on the y axis when it is alone).
    pub name: &'a str,
    /// Its samples, one per time.
    pub values: &'a [f64],
    /// How it is drawn.
    pub mark: Mark,
    /// Its colour's index in the palette (taken modulo the palette's size).
    pub color: usize,
}

/// One panel of signals sharing a y axis.
#[derive(Debug, Clone)]
pub struct Panel<'a> {
    /// The y axis label (default: the name of the panel's only signal).
    pub label: Option<&'a str>,
    /// The signals, with a legend when there is more than one.
    pub signals: Vec<Signal<'a>>,
}

/// Size, layout and title of a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotOptions {
    /// Title above the plot.
    pub title: Option<String>,
    /// Arrangement of the signals.
    pub layout: Layout,
    /// Width in pixels.
    pub width: u32,
    /// Height of one stacked panel in pixels (the overlay panel is twice as high).
    pub panel_height: u32,
    /// The label of the shared x axis.
    pub x_label: String,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            title: None,
            layout: Layout::Stacked,
            width: 1200,
            panel_height: 280,
            x_label: "time".into(),
        }
    }
}

/// Line colours (Tableau 10), reused in turn.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
const TITLE_HEIGHT: u32 = 50;
const FONT: &str = "sans-serif";

/// Draws `series` into `path` (`.png` or `.svg`).
pub fn time_series(path: &Path, series: &TimeSeries, options: &PlotOptions) -> Result<()> {
    let groups: Vec<&[(&str, &[f64])]> = match options.layout {
        Layout::Stacked => series.columns.chunks(1).collect(),
        Layout::Overlay => vec![series.columns.as_slice()],
    };
    // The single overlay panel gets the height of two stacked ones.
    let heights = match options.layout {
        Layout::Stacked => series.columns.len() as u32,
        Layout::Overlay => 2,
    };
    render(path, series.time, &line_panels(&groups), heights, options)
}

/// Draws one panel per group of `groups`, stacked over a shared time axis, each group's
/// signals overlaid with a legend (`options.layout` is not used).
pub fn grouped_time_series(
    path: &Path,
    time: &[f64],
    groups: &[&[(&str, &[f64])]],
    options: &PlotOptions,
) -> Result<()> {
    render(
        path,
        time,
        &line_panels(groups),
        groups.len() as u32,
        options,
    )
}

/// Draws `panels` stacked over a shared time axis (`options.layout` is not used).
pub fn panels(path: &Path, time: &[f64], panels: &[Panel], options: &PlotOptions) -> Result<()> {
    render(path, time, panels, panels.len() as u32, options)
}

/// Panels of solid lines, one per group; colours continue from panel to panel, so that a
/// signal keeps its colour in a stacked plot.
fn line_panels<'a>(groups: &[&[(&'a str, &'a [f64])]]) -> Vec<Panel<'a>> {
    let mut color = 0;
    groups
        .iter()
        .map(|group| Panel {
            label: None,
            signals: group
                .iter()
                .map(|&(name, values)| {
                    color += 1;
                    Signal {
                        name,
                        values,
                        mark: Mark::Line,
                        color: color - 1,
                    }
                })
                .collect(),
        })
        .collect()
}

/// Checks the signals and draws `panels` into `heights` panel heights of `path`.
fn render(
    path: &Path,
    time: &[f64],
    panels: &[Panel],
    heights: u32,
    options: &PlotOptions,
) -> Result<()> {
    let failure = |message: String| Error::Plot {
        path: path.to_path_buf(),
        message,
    };
    if panels.iter().all(|panel| panel.signals.is_empty()) {
        return Err(failure("there are no signals to plot".into()));
    }
    if let Some(signal) = panels
        .iter()
        .flat_map(|panel| panel.signals.iter())
        .find(|signal| signal.values.len() != time.len())
    {
        return Err(failure(format!(
            "signal {} has {} samples for {} times",
            signal.name,
            signal.values.len(),
            time.len()
        )));
    }
    crate::files::check_output(path)?;
    register_font().map_err(failure)?;
    let title = options.title.as_ref().map_or(0, |_| TITLE_HEIGHT);
    let size = (options.width, heights * options.panel_height + title);
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("png") => draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            time,
            panels,
            options,
        ),
        Some("svg") => draw(
            SVGBackend::new(path, size).into_drawing_area(),
            time,
            panels,
            options,
        ),
        _ => Err("the plot file must end in .png or .svg".to_string()),
    }
    .map_err(failure)
}

/// Makes the embedded font the sans-serif family of every plot.
fn register_font() -> std::result::Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err("the embedded font could not be loaded".into())
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    time: &[f64],
    panels: &[Panel],
    options: &PlotOptions,
) -> std::result::Result<(), String>
where
    DB::ErrorType: BackendError,
{
    let problem = |e: DrawingAreaErrorKind<DB::ErrorType>| describe(e);
    root.fill(&WHITE).map_err(problem)?;
    let area = match &options.title {
        Some(title) => root.titled(title, (FONT, 26)).map_err(problem)?,
        None => root.clone(),
    };
    let time_range = axis_range(time.iter().copied());
    let areas = area.split_evenly((panels.len(), 1));
    let last = areas.len() - 1;
    for (index, (area, panel)) in areas.iter().zip(panels).enumerate() {
        let x_label = (index == last).then_some(options.x_label.as_str());
        panel_chart(area, time, panel, time_range.clone(), x_label).map_err(problem)?;
    }
    root.present().map_err(problem)
}

/// One panel with its signals; a legend when there is more than one signal.
fn panel_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    time: &[f64],
    panel: &Panel,
    time_range: Range<f64>,
    x_label: Option<&str>,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let signals = &panel.signals;
    let values = axis_range(signals.iter().flat_map(|s| s.values.iter().copied()));
    let span = values.end - values.start;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .margin_right(28)
        .x_label_area_size(if x_label.is_some() { 48 } else { 28 })
        .y_label_area_size(90)
        .build_cartesian_2d(time_range, values)?;
    let tick = |y: &f64| format_tick(*y, span);
    let mut mesh = chart.configure_mesh();
    mesh.label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .y_label_formatter(&tick);
    if let Some(x_label) = x_label {
        mesh.x_desc(x_label);
    }
    let label = match signals.as_slice() {
        [only] => panel.label.or(Some(only.name)),
        _ => panel.label,
    };
    if let Some(label) = label {
        mesh.y_desc(label);
    }
    mesh.draw()?;
    let legend = signals.len() > 1;
    for signal in signals {
        let color = COLORS[signal.color % COLORS.len()];
        let style = color.stroke_width(2);
        let mut labelled = !legend;
        for points in finite_segments(time, signal.values) {
            let drawn = match (signal.mark, &points[..]) {
                (Mark::Markers, _) | (_, [_]) => chart.draw_series(
                    points
                        .iter()
                        .map(|&point| Circle::new(point, 3, color.filled())),
                )?,
                (Mark::Dashed, _) => {
                    chart.draw_series([DashedPathElement::new(points, 8, 6, style)])?
                }
                // Each piece is its own two-point path: plotters joins thick polylines with
                // unbounded miters, which shoot across the plot at sharp spikes.
                (Mark::Line, _) => chart.draw_series(
                    points
                        .windows(2)
                        .map(|pair| PathElement::new(pair.to_vec(), style)),
                )?,
            };
            if !labelled {
                labelled = true;
                drawn
                    .label(signal.name)
                    .legend(move |(x, y)| legend_mark(signal.mark, color, x, y));
            }
        }
    }
    if legend {
        chart
            .configure_series_labels()
            .label_font((FONT, 16))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    Ok(())
}

/// The legend's sample of a signal drawn with `mark` in `color` at `(x, y)`.
fn legend_mark<DB: DrawingBackend>(
    mark: Mark,
    color: RGBColor,
    x: i32,
    y: i32,
) -> DynElement<'static, DB, (i32, i32)> {
    match mark {
        Mark::Line => PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3)).into_dyn(),
        Mark::Dashed => {
            DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 4, color.stroke_width(3))
                .into_dyn()
        }
        Mark::Markers => Circle::new((x + 12, y), 4, color.filled()).into_dyn(),
    }
}

/// The runs of consecutive samples where both time and value are finite.
fn finite_segments(time: &[f64], values: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let mut segments = vec![Vec::new()];
    for (&t, &v) in time.iter().zip(values) {
        if t.is_finite() && v.is_finite() {
            segments.last_mut().expect("never empty").push((t, v));
        } else if !segments.last().expect("never empty").is_empty() {
            segments.push(Vec::new());
        }
    }
    segments.retain(|s| !s.is_empty());
    segments
}

/// The range of the finite `values` with a 5 % margin; a unit range around a constant.
fn axis_range(values: impl Iterator<Item = f64>) -> Range<f64> {
    let (low, high) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if low > high {
        return -1.0..1.0;
    }
    if high - low <= 1e-12 * low.abs().max(high.abs()) {
        let pad = if low == 0.0 { 1.0 } else { 0.1 * low.abs() };
        return low - pad..high + pad;
    }
    let pad = 0.05 * (high - low);
    low - pad..high + pad
}

/// Tick labels: plain for moderate magnitudes, exponent form for very large or small ones;
/// zero for rounding noise far below the axis span `span`.
fn format_tick(value: f64, span: f64) -> String {
    let magnitude = value.abs();
    if magnitude <= 1e-9 * span {
        "0".into()
    } else if (1e-3..1e5).contains(&magnitude) {
        let text = format!("{value:.4}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        text.to_string()
    } else {
        format!("{value:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_samples_split_the_line() {
        let time = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let values = [1.0, f64::NAN, 3.0, 4.0, f64::INFINITY, f64::NAN];
        assert_eq!(
            finite_segments(&time, &values),
            [vec![(0.0, 1.0)], vec![(2.0, 3.0), (3.0, 4.0)]]
        );
    }

    #[test]
    fn ranges_have_margins_and_constants_get_a_span() {
        assert_eq!(axis_range([0.0, 10.0].into_iter()), -0.5..10.5);
        assert_eq!(axis_range([2.0, 2.0].into_iter()), 1.8..2.2);
        assert_eq!(axis_range([0.0].into_iter()), -1.0..1.0);
        assert_eq!(axis_range([f64::NAN].into_iter()), -1.0..1.0);
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(format_tick(0.25, 1.0), "0.25");
        assert_eq!(format_tick(-3.0, 1.0), "-3");
        assert_eq!(format_tick(1.5e-6, 1e-5), "1.50e-6");
        assert_eq!(format_tick(0.0, 1.0), "0");
        assert_eq!(format_tick(-1.39e-17, 0.2), "0");
    }

    /// Dark pixels in rows `rows` of an RGB buffer `width` wide.
    fn dark_pixels(buffer: &[u8], width: usize, rows: Range<usize>) -> usize {
        buffer[rows.start * width * 3..rows.end * width * 3]
            .chunks(3)
            .filter(|p| p.iter().all(|&c| c < 128))
            .count()
    }

    #[test]
    fn text_is_rendered_with_the_embedded_font() {
        register_font().unwrap();
        let time = [0.0, 1.0];
        let values = [0.0, 1.0];
        let series = TimeSeries {
            time: &time,
            columns: vec![("x", &values)],
        };
        let (width, height) = (400, 200 + TITLE_HEIGHT);
        let mut buffer = vec![0u8; (width * height * 3) as usize];
        let options = PlotOptions {
            title: Some("Tandem".into()),
            width,
            panel_height: 200,
            ..PlotOptions::default()
        };
        let area = BitMapBackend::with_buffer(&mut buffer, (width, height)).into_drawing_area();
        draw(
            area,
            series.time,
            &line_panels(&[series.columns.as_slice()]),
            &options,
        )
        .unwrap();
        let glyphs = dark_pixels(&buffer, width as usize, 0..TITLE_HEIGHT as usize);
        assert!(
            glyphs > 50,
            "the title's glyphs are drawn: {glyphs} dark pixels"
        );
    }

    #[test]
    fn png_and_svg_files_are_written_and_other_extensions_refused() {
        let dir = tempfile::tempdir().unwrap();
        let time: Vec<f64> = (0..200).map(|i| i as f64 * 0.05).collect();
        let sine: Vec<f64> = time.iter().map(|t| t.sin()).collect();
        let cosine: Vec<f64> = time.iter().map(|t| t.cos()).collect();
        let series = TimeSeries {
            time: &time,
            columns: vec![("sin", &sine), ("cos", &cosine)],
        };
        for layout in [Layout::Stacked, Layout::Overlay] {
            let options = PlotOptions {
                title: Some("test".into()),
                layout,
                ..PlotOptions::default()
            };
            let png = dir.path().join("plot.png");
            time_series(&png, &series, &options).unwrap();
            let bytes = std::fs::read(&png).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
            let svg = dir.path().join("plot.svg");
            time_series(&svg, &series, &options).unwrap();
            let text = std::fs::read_to_string(&svg).unwrap();
            assert!(text.contains("<svg"), "{text}");
            assert!(text.lines().any(|line| line.trim() == "time"), "{text}");
        }
        let error = time_series(
            &dir.path().join("plot.pdf"),
            &series,
            &PlotOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("plot.pdf") && error.contains(".png or .svg"),
            "{error}"
        );
    }

    #[test]
    fn a_plot_in_a_missing_folder_fails_with_the_os_error_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let time = [0.0, 1.0];
        let series = TimeSeries {
            time: &time,
            columns: vec![("x", &time)],
        };
        for name in ["p.png", "p.svg"] {
            let path = dir.path().join("missing").join(name);
            let missing = std::fs::File::create(&path).unwrap_err();
            let error = time_series(&path, &series, &PlotOptions::default())
                .unwrap_err()
                .to_string();
            let expected = format!("{}: cannot draw the plot: {missing}", path.display());
            assert!(error.starts_with(&expected), "{error}");
            assert!(!error.contains("Error("), "{error}");
        }
    }
}

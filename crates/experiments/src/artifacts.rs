//! Small helpers the reproductions share to write their files: CSV tables, line
//! charts placed in the report, and the mean with its 95% confidence half-width.

use crate::context::Context;
use crate::report::Figure;
use spikelab_output::csv::CsvWriter;
use spikelab_output::plot::{line_chart, Chart, PlotFiles, Series};
use spikelab_output::stats::Summary;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// A CSV writer on a new file at `path`, its header row written.
pub fn csv_file(path: &Path, header: &[&str]) -> anyhow::Result<CsvWriter<BufWriter<File>>> {
    let file =
        File::create(path).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    let mut w = CsvWriter::new(BufWriter::new(file));
    w.row(header)?;
    Ok(w)
}

/// Flushes a CSV writer to its file.
pub fn finish_csv(w: CsvWriter<BufWriter<File>>) -> anyhow::Result<()> {
    use std::io::Write;
    w.into_inner()?.flush()?;
    Ok(())
}

/// Draws `series` as a line chart `ctx.dir/<name>.{png,svg}` and returns the report's
/// figure, its paths relative to the report's root.
pub fn line_figure(
    ctx: &Context,
    name: &str,
    chart: Chart,
    series: &[Series],
) -> anyhow::Result<Figure> {
    let files = line_chart(&chart, series, &ctx.dir.join(name))?;
    Ok(figure_of(ctx, &files, &chart.title))
}

/// The files of a drawn chart as a report figure, its paths relative to the root.
pub fn figure_of(ctx: &Context, files: &PlotFiles, title: &str) -> Figure {
    Figure {
        title: title.into(),
        png: ctx.relative(&files.png),
        svg: ctx.relative(&files.svg),
    }
}

/// (mean, 95% confidence half-width) of `xs`; the half-width is NaN below two values.
pub fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let s = Summary::of(xs);
    (s.mean, s.ci95)
}

/// A chart with its title and axis labels.
pub fn chart(title: &str, x: &str, y: &str) -> Chart {
    Chart {
        title: title.into(),
        x_label: x.into(),
        y_label: y.into(),
    }
}

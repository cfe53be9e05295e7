//! Result rows at a fixed output interval (`[output] interval`) from the values at the macro
//! points, which adaptive steps place anywhere: a row at every `start + n * interval` (and at
//! the stop time), its values interpolated linearly between the macro points around it.
//!
//! A macro point on the grid (within a millionth of the interval, which absorbs the rounding of
//! two grids that meet, as a fixed step dividing the interval) gives its own values exactly.

use tandem_cosim::time_grid::{grid_intervals, grid_point};

/// The grid and the macro point before the next row.
pub struct OutputGrid {
    start: f64,
    stop: f64,
    interval: f64,
    /// Rows on the grid: `intervals + 1`.
    intervals: usize,
    /// The index of the next row.
    next: usize,
    /// The latest macro point: its time and values.
    previous: Option<(f64, Vec<f64>)>,
    /// The row being written, kept to spare an allocation per row.
    row: Vec<f64>,
}

impl OutputGrid {
    /// Rows every `interval` from `start` to `stop`.
    pub fn new(start: f64, stop: f64, interval: f64) -> Self {
        OutputGrid {
            start,
            stop,
            interval,
            intervals: grid_intervals(start, interval, stop),
            next: 0,
            previous: None,
            row: Vec::new(),
        }
    }

    /// Number of rows the grid has.
    pub fn rows(&self) -> usize {
        self.intervals + 1
    }

    /// Takes the values at the macro point `time` and gives `write` every row of the grid from
    /// the previous point (excluded) to `time`.
    pub fn point<E>(
        &mut self,
        time: f64,
        values: &[f64],
        mut write: impl FnMut(f64, &[f64]) -> Result<(), E>,
    ) -> Result<(), E> {
        let near = 1e-6 * self.interval;
        while self.next <= self.intervals {
            let at = grid_point(self.start, self.interval, self.next, self.stop);
            if at > time + near {
                break;
            }
            match &self.previous {
                Some((before, old)) if (at - time).abs() > near => {
                    let theta = (at - before) / (time - before);
                    self.row.clear();
                    // At theta = 1 this is `new` exactly, at 0 `old`.
                    let mix = old
                        .iter()
                        .zip(values)
                        .map(|(a, b)| a * (1.0 - theta) + b * theta);
                    self.row.extend(mix);
                    write(at, &self.row)?;
                }
                _ => write(at, values)?,
            }
            self.next += 1;
        }
        match &mut self.previous {
            Some((before, old)) => {
                *before = time;
                old.clear();
                old.extend_from_slice(values);
            }
            None => self.previous = Some((time, values.to_vec())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(grid: &mut OutputGrid, points: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let mut written = Vec::new();
        for &(time, value) in points {
            grid.point(time, &[value], |at, row| {
                written.push((at, row[0]));
                Ok::<_, ()>(())
            })
            .unwrap();
        }
        written
    }

    #[test]
    fn rows_between_points_are_interpolated_and_points_on_the_grid_kept() {
        let mut grid = OutputGrid::new(0.0, 1.0, 0.25);
        assert_eq!(grid.rows(), 5);
        let points = [(0.0, 1.0), (0.3, 4.0), (0.5, 0.1), (1.0, 2.0)];
        let written = rows(&mut grid, &points);
        let expected = [
            (0.0, 1.0),
            (0.25, 1.0 * (1.0 - 0.25 / 0.3) + 4.0 * (0.25 / 0.3)),
            (0.5, 0.1),
            (0.75, 0.1 * 0.5 + 2.0 * 0.5),
            (1.0, 2.0),
        ];
        assert_eq!(written, expected);
    }

    #[test]
    fn a_stop_off_the_grid_gets_its_row() {
        let mut grid = OutputGrid::new(0.0, 0.7, 0.25);
        let written = rows(&mut grid, &[(0.0, 0.0), (0.7, 7.0)]);
        let times: Vec<f64> = written.iter().map(|r| r.0).collect();
        assert_eq!(times, [0.0, 0.25, 0.5, 0.7]);
        assert_eq!(written[3].1, 7.0);
    }
}

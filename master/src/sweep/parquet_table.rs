//! The sweep's table as a Parquet file (`--output sweep.parquet`), for pandas, polars and
//! Arrow: the CSV's columns, `run` as a 64-bit integer, the parameters and the wall time as
//! doubles, `status` and `message` as UTF-8 strings, the metrics as nullable doubles (null where
//! a run failed). One row group, uncompressed: a sweep's table is small.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::Type;

use super::table::SweepTable;
use crate::error::{Error, Result};

/// What a column of the table holds.
enum Column {
    Run,
    Parameter(usize),
    Status,
    Message,
    WallTime,
    Metric(usize),
}

impl Column {
    /// The columns of `table`, in order, with their names.
    fn all(table: &SweepTable) -> Vec<(String, Column)> {
        let parameters = (0..table.parameters.len()).map(Column::Parameter);
        let fixed = [Column::Status, Column::Message, Column::WallTime];
        let metrics = (0..table.metrics.len()).map(Column::Metric);
        std::iter::once(Column::Run)
            .chain(parameters)
            .chain(fixed)
            .chain(metrics)
            .zip(table.header())
            .map(|(column, name)| (name, column))
            .collect()
    }

    /// Its Parquet type, named `name`.
    fn parquet_type(&self, name: &str) -> std::result::Result<Type, ParquetError> {
        let (physical, repetition, logical) = match self {
            Column::Run => (Physical::INT64, Repetition::REQUIRED, None),
            Column::Parameter(_) | Column::WallTime => {
                (Physical::DOUBLE, Repetition::REQUIRED, None)
            }
            Column::Status | Column::Message => (
                Physical::BYTE_ARRAY,
                Repetition::REQUIRED,
                Some(LogicalType::String),
            ),
            Column::Metric(_) => (Physical::DOUBLE, Repetition::OPTIONAL, None),
        };
        Type::primitive_type_builder(name, physical)
            .with_repetition(repetition)
            .with_logical_type(logical)
            .build()
    }

    /// Writes the column's values of every row of `table`.
    fn write(
        &self,
        table: &SweepTable,
        writer: &mut SerializedColumnWriter<'_>,
    ) -> std::result::Result<(), ParquetError> {
        let rows = &table.rows;
        match self {
            Column::Run => {
                let runs: Vec<i64> = (0..rows.len() as i64).collect();
                writer.typed::<Int64Type>().write_batch(&runs, None, None)?;
            }
            Column::Parameter(i) => {
                let values: Vec<f64> = rows.iter().map(|r| r.parameters[*i]).collect();
                writer
                    .typed::<DoubleType>()
                    .write_batch(&values, None, None)?;
            }
            Column::WallTime => {
                let values: Vec<f64> = rows.iter().map(|r| r.wall_time.as_secs_f64()).collect();
                writer
                    .typed::<DoubleType>()
                    .write_batch(&values, None, None)?;
            }
            Column::Status | Column::Message => {
                let texts: Vec<ByteArray> = rows
                    .iter()
                    .map(|r| match self {
                        Column::Status => r.status().into(),
                        _ => r.message().into(),
                    })
                    .collect();
                writer
                    .typed::<ByteArrayType>()
                    .write_batch(&texts, None, None)?;
            }
            Column::Metric(i) => {
                let values: Vec<f64> = rows
                    .iter()
                    .filter_map(|r| r.outcome.as_ref().ok().map(|metrics| metrics[*i]))
                    .collect();
                let defined: Vec<i16> = rows.iter().map(|r| i16::from(r.outcome.is_ok())).collect();
                writer
                    .typed::<DoubleType>()
                    .write_batch(&values, Some(&defined), None)?;
            }
        }
        Ok(())
    }
}

/// Writes `table` as Parquet into `file`, the result file `path`.
pub fn write(table: &SweepTable, path: &Path, file: File) -> Result<()> {
    let columns = Column::all(table);
    let written = (|| -> std::result::Result<(), ParquetError> {
        let fields = columns
            .iter()
            .map(|(name, column)| column.parquet_type(name).map(Arc::new))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let schema = Type::group_type_builder("sweep")
            .with_fields(fields)
            .build()?;
        let mut writer = SerializedFileWriter::new(file, Arc::new(schema), Default::default())?;
        let mut group = writer.next_row_group()?;
        for (_, column) in &columns {
            let mut column_writer = group
                .next_column()?
                .expect("the schema has a column per table column");
            column.write(table, &mut column_writer)?;
            column_writer.close()?;
        }
        group.close()?;
        writer.close()?;
        Ok(())
    })();
    written.map_err(|e| {
        Error::input_file(
            path.to_path_buf(),
            format!("cannot write the sweep table: {e}"),
        )
    })
}

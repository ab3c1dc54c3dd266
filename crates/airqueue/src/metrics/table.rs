//! Columnar result tables: what Python receives as pandas DataFrames, column by column,
//! without per-row conversion.

/// One column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    /// Short text columns (one row per flow or queue).
    Str(Vec<String>),
    /// Long repetitive text (time-series entity names): codes into `categories`.
    Cat {
        codes: Vec<u32>,
        categories: Vec<String>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A table as named columns of equal length, in display order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, col: Column) {
        debug_assert!(
            self.columns
                .first()
                .is_none_or(|(_, c)| c.len() == col.len()),
            "column {name} has a different length"
        );
        self.columns.push((name.to_string(), col));
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    /// A numeric column as f64 values (tests and summaries).
    pub fn f64s(&self, name: &str) -> Vec<f64> {
        match self.column(name) {
            Some(Column::F64(v)) => v.clone(),
            Some(Column::U64(v)) => v.iter().map(|&x| x as f64).collect(),
            _ => panic!("no numeric column {name}"),
        }
    }
    pub fn u64s(&self, name: &str) -> Vec<u64> {
        match self.column(name) {
            Some(Column::U64(v)) => v.clone(),
            _ => panic!("no integer column {name}"),
        }
    }
    /// Index of the row whose `key` column equals `value`.
    pub fn row_of(&self, key: &str, value: &str) -> Option<usize> {
        match self.column(key) {
            Some(Column::Str(v)) => v.iter().position(|s| s == value),
            _ => None,
        }
    }
}

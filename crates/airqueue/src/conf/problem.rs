//! Scenario problems: every one names the field path and says how to fix it.

use std::fmt;

/// One problem in a scenario: where (`links.bottleneck.rate`) and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// All problems found in a scenario, in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScenarioError {
    pub problems: Vec<Problem>,
}

impl ScenarioError {
    pub fn single(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            problems: vec![Problem::new(path, message)],
        }
    }
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem::new(path, message));
    }
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }
    /// `Ok(())` when no problem was recorded.
    pub fn into_result(self) -> Result<(), ScenarioError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        writeln!(
            f,
            "the scenario has {n} problem{}:",
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            writeln!(f, "  {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

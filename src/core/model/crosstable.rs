//! [`Crosstable`]: a tournament's table (Kreuztabelle) as values; `crate::core::records::crosstable`
//! computes it, the render layer writes it (`crate::render::words::crosstable`).

/// One player's line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The rank; players equal on points and Sonneborn-Berger share it.
    pub rank: usize,
    /// Position in the tournament file (0-based): the starting number minus one.
    pub start: usize,
    pub name: String,
    pub email: String,
    /// Points in half points (3 = 1½).
    pub half_points: u32,
    /// Sonneborn-Berger in quarter points (9 = 2¼).
    pub sb_quarters: u32,
    /// Games finished with a result.
    pub played: u32,
    /// Games not finished (or finished without a result).
    pub open: u32,
    /// Per column (ranking order): the row player's results against that player, e.g. `1½`, `*`,
    /// `×` on the diagonal, empty where they do not meet.
    pub cells: Vec<String>,
}

/// A tournament's crosstable, rows in ranking order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosstable {
    pub tournament: String,
    pub name: String,
    pub rows: Vec<Row>,
}

//! [`Person`]: a person of a tournament by name and address.

use serde::{Deserialize, Serialize};

/// A person: a player or a director.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub name: String,
    pub email: String,
}

//! Players and games: a net at 0-ply or pubeval, whole games, and matches
//! with duplicate or independent dice.

pub mod engine;
pub mod game;
pub mod matches;

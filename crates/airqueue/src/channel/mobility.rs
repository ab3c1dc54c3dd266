//! Node positions and constant-velocity motion, computed when asked (no tick events): a
//! node at `origin` at time `since` moving at `velocity` m/s is at
//! `origin + velocity · (t − since)` at time t.

use crate::engine::SimTime;

/// A point in metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Position {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Position { x, y, z }
    }

    /// Euclidean distance in metres.
    pub fn distance(&self, o: &Position) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2) + (self.z - o.z).powi(2)).sqrt()
    }
}

/// A node's motion: a position at `since` and a constant velocity (m/s per axis).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    pub origin: Position,
    pub velocity: Position,
    pub since: SimTime,
}

impl Motion {
    /// A node that does not move.
    pub const fn fixed(at: Position) -> Self {
        Motion {
            origin: at,
            velocity: Position::new(0.0, 0.0, 0.0),
            since: SimTime::ZERO,
        }
    }

    /// The position at `t` (before `since`, the node is at `origin`).
    pub fn position_at(&self, t: SimTime) -> Position {
        let dt = t.0.saturating_sub(self.since.0) as f64 * 1e-9;
        Position {
            x: self.origin.x + self.velocity.x * dt,
            y: self.origin.y + self.velocity.y * dt,
            z: self.origin.z + self.velocity.z * dt,
        }
    }

    /// Distance between two moving nodes at `t`.
    pub fn distance_at(&self, other: &Motion, t: SimTime) -> f64 {
        self.position_at(t).distance(&other.position_at(t))
    }
}

/// A node's path: constant-velocity legs one after the other (ns-3's
/// `ConstantVelocityMobilityModel` with `SetVelocity` calls at given instants). Each leg
/// starts where the previous one has brought the node.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    legs: Vec<Motion>,
}

impl Track {
    /// A node standing at `at` until the first of `changes` (`(when, velocity)`, in any
    /// order; a later change replaces the velocity from its instant on).
    pub fn new(at: Position, changes: &[(SimTime, Position)]) -> Track {
        let mut changes = changes.to_vec();
        changes.sort_by_key(|c| c.0);
        let mut legs = vec![Motion::fixed(at)];
        for (since, velocity) in changes {
            let origin = legs.last().unwrap().position_at(since);
            legs.push(Motion {
                origin,
                velocity,
                since,
            });
        }
        Track { legs }
    }

    /// Whether the node ever moves.
    pub fn moves(&self) -> bool {
        self.legs
            .iter()
            .any(|m| m.velocity != Position::new(0.0, 0.0, 0.0))
    }

    /// The position at `t`.
    pub fn position_at(&self, t: SimTime) -> Position {
        let leg = self
            .legs
            .iter()
            .rev()
            .find(|m| m.since <= t)
            .unwrap_or(&self.legs[0]);
        leg.position_at(t)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_track_chains_its_legs() {
        let t = Track::new(
            Position::new(10.0, 0.0, 0.0),
            &[
                (SimTime::from_secs(20), Position::new(0.0, 0.0, 0.0)),
                (SimTime::from_secs(10), Position::new(1.0, 0.5, 0.0)),
            ],
        );
        assert!(t.moves());
        assert_eq!(
            t.position_at(SimTime::from_secs(5)),
            Position::new(10.0, 0.0, 0.0)
        );
        assert_eq!(
            t.position_at(SimTime::from_secs(15)),
            Position::new(15.0, 2.5, 0.0)
        );
        assert_eq!(
            t.position_at(SimTime::from_secs(99)),
            Position::new(20.0, 5.0, 0.0)
        );
        assert!(!Track::new(Position::default(), &[]).moves());
    }

    use super::*;

    #[test]
    fn constant_velocity_positions_are_linear_in_time() {
        let a = Motion::fixed(Position::new(0.0, 0.0, 0.0));
        let b = Motion {
            origin: Position::new(1.0, 0.0, 0.0),
            velocity: Position::new(0.7, 0.0, 0.0),
            since: SimTime::from_secs(2),
        };
        assert_eq!(a.distance_at(&b, SimTime::ZERO), 1.0);
        assert!((a.distance_at(&b, SimTime::from_secs(12)) - 8.0).abs() < 1e-12);
    }
}

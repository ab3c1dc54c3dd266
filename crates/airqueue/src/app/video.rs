//! Video as seed 000 generates it with D-ITG (`ITGSend -C <packets/s> -c <size>`): constant
//! packet rate, constant packet size, over UDP (Table 2: Video-BT 10 packets/s, Video-WLAN 45
//! packets/s, 1500 bytes).

use crate::engine::SimTime;

/// The interval between packets at `packets_per_second`, to the nearest nanosecond.
pub fn video_interval(packets_per_second: f64) -> SimTime {
    SimTime::from_secs_f64(1.0 / packets_per_second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_2_rates_give_their_intervals() {
        assert_eq!(video_interval(10.0), SimTime::from_millis(100));
        // 1/45 s = 22 222 222.2 ns, rounded to the nearest nanosecond.
        assert_eq!(video_interval(45.0), SimTime::from_nanos(22_222_222));
    }
}

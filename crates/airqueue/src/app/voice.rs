//! Voice: constant-rate RTP packets of codec frames, as D-ITG's VoIP generator makes them
//! (`ITGSend -a VoIP -x G.711.1|G.711.2|G.729.2|G.729.3 -h RTP|CRTP`, its `voIPParser`:
//! packet payload = frame size × frames per packet + header, at 100 / frames packets/s).
//!
//! A voice flow is one direction of a call (a call is two flows). No silence suppression:
//! D-ITG's `-VAD` only scales the packet size by 0.65, which is not a talk-spurt model.

use crate::app::{VoiceCodec, VoiceHeader};
use crate::engine::SimTime;

/// Length of one codec frame (G.711 and G.729 both frame 10 ms of speech).
pub const FRAME: SimTime = SimTime::from_millis(10);

/// Bytes of one 10-ms frame: G.711 64 kbit/s → 80 B, G.729 8 kbit/s → 10 B.
pub fn frame_bytes(codec: VoiceCodec) -> u32 {
    match codec {
        VoiceCodec::G711 => 80,
        VoiceCodec::G729 => 10,
    }
}

/// Header bytes inside the UDP payload: RTP 12 (RFC 3550), compressed RTP 2 (RFC 2508).
pub fn header_bytes(header: VoiceHeader) -> u32 {
    match header {
        VoiceHeader::Rtp => 12,
        VoiceHeader::Crtp => 2,
    }
}

/// UDP payload bytes and interval of a voice source.
pub fn voice_packets(
    codec: VoiceCodec,
    frames_per_packet: u32,
    header: VoiceHeader,
) -> (u32, SimTime) {
    let payload = frame_bytes(codec) * frames_per_packet + header_bytes(header);
    let interval = SimTime::from_nanos(FRAME.as_nanos() * u64::from(frames_per_packet));
    (payload, interval)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{IPV4_HEADER_BYTES, UDP_HEADER_BYTES};

    const IP_UDP: u32 = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;

    #[test]
    fn g711_one_frame_is_seed_000s_120_byte_voice_flow_at_100_packets_per_second() {
        // Seed 000, Table 2: "Voice UDP – 120"; D-ITG's default G.711.1 (80 B, 100 pkt/s).
        let (payload, interval) = voice_packets(VoiceCodec::G711, 1, VoiceHeader::Rtp);
        assert_eq!(payload + IP_UDP, 120);
        assert_eq!(interval, SimTime::from_millis(10));
    }

    #[test]
    fn g711_two_frames_is_160_bytes_of_speech_every_20_ms_in_200_byte_packets() {
        // The "160-byte payload every 20 ms"; seed 002: "G.711 coding, 200-B packets".
        let (payload, interval) = voice_packets(VoiceCodec::G711, 2, VoiceHeader::Rtp);
        assert_eq!(payload - 12, 160);
        assert_eq!(payload + IP_UDP, 200);
        assert_eq!(interval, SimTime::from_millis(20));
        // 64 kbit/s of speech.
        assert_eq!(u64::from(payload - 12) * 8 * 50, 64_000);
    }

    #[test]
    fn g729_and_compressed_rtp() {
        // D-ITG G.729.2 with CRTP: 2 × 10 B + 2 B at 50 packets/s.
        let (payload, interval) = voice_packets(VoiceCodec::G729, 2, VoiceHeader::Crtp);
        assert_eq!((payload, interval), (22, SimTime::from_millis(20)));
    }
}

//! The send buffer: how much of the application's data a Linux socket holds, and when the
//! writing application is let in again (Linux `sk_sndbuf` with `tcp_wmem` autotuning).
//!
//! A Linux sender can only send what the application has copied into the socket, and the
//! socket takes data only while its queued memory (`sk_wmem_queued`: every byte from
//! `snd_una` to `write_seq`, sent, SACKed or not yet sent) is below `sk_sndbuf`
//! (`sk_stream_memory_free`). A bulk writer (iperf3, a file upload) is therefore blocked most
//! of the time, and wakes only when ACKs have freed enough: `sk_stream_write_space`, called
//! from `tcp_new_space` after every ACK while the writer waits (`SOCK_NOSPACE`), wakes it
//! when the free space is at least half of what is queued (`__sk_stream_is_writeable`:
//! `sndbuf − queued ≥ queued/2`, i.e. queued ≤ ⅔ of the buffer); `poll` reports `EPOLLOUT`
//! by the same test. The woken writer copies until the socket is full again.
//!
//! `sk_sndbuf` starts at `tcp_wmem[1]` (16 KiB) and is autotuned by `tcp_sndbuf_expand` to
//! `2 · max(TCP_INIT_CWND, cwnd, reordering + 1) · per_mss` (CUBIC and Reno have no
//! `sndbuf_expand` hook, so the factor is 2), never above `tcp_wmem[2]` (4 MiB): once when
//! the connection is established (`tcp_init_buffer_space`) and then on an ACK while the
//! writer waits, if the congestion window is not full (`tcp_should_expand_sndbuf`:
//! `tcp_packets_in_flight < snd_cwnd`). `per_mss` is the memory Linux assumes one segment
//! costs when each frame is its own skb: `roundup_pow_of_two(mss_clamp + MAX_TCP_HEADER +
//! SKB_DATA_ALIGN(sizeof(struct skb_shared_info))) + SKB_DATA_ALIGN(sizeof(struct
//! sk_buff))`, 4 352 B for a 1 460 B MSS on x86-64 with a distribution's configuration
//! (`MAX_TCP_HEADER` = 320, shared info 320, `sk_buff` 256).
//!
//! So a Linux bulk sender's data in flight plus unsent data never exceeds `tcp_wmem[2]`:
//! beyond about 2 800 full segments (4 MiB) it stops growing its flight, whatever cwnd
//! says, and the queue it fills in front of a slow link stops growing with it.
//!
//! Sources: Linux 6.1 `net/ipv4/tcp_input.c` (`tcp_sndbuf_expand`, `tcp_init_buffer_space`,
//! `tcp_should_expand_sndbuf`, `tcp_new_space`, `tcp_check_space`, `tcp_data_snd_check`),
//! `net/core/stream.c` (`sk_stream_write_space`, `sk_stream_wait_memory`),
//! `include/net/sock.h` (`sk_stream_wspace`, `sk_stream_min_wspace`,
//! `__sk_stream_memory_free`, `__sk_stream_is_writeable`), `net/ipv4/tcp.c`
//! (`tcp_sendmsg_locked`, `tcp_poll`, `sysctl_tcp_wmem` defaults 4096 16384 4194304). The
//! same code runs in the 6.18 kernel the live runs used (docs/live.md, adwiser-g).
//!
//! Not modelled: the memory is counted as payload bytes. Linux counts each skb's
//! `truesize`, payload plus one skb head per (GSO-sized) skb; measured on the live run's
//! kernel that is 1.3 % more for unsent data and 2.6 % for data in flight, so the modelled
//! socket holds that much more data at the cap. The writer fills the buffer exactly (Linux
//! copies into the last skb up to its size goal, overshooting by less than one skb). Global
//! TCP memory pressure (`tcp_mem`) and `SO_SNDBUF` (a fixed buffer) are not modelled.

/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64 (Linux 6.1).
const SKB_SHARED_INFO: u64 = 320;
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64 (Linux 6.1).
const SK_BUFF: u64 = 256;
/// `MAX_TCP_HEADER` = `L1_CACHE_ALIGN(128 + MAX_HEADER)` with a distribution's
/// configuration (Hyper-V and tunnels built: `MAX_HEADER` = 176).
const MAX_TCP_HEADER: u64 = 320;
/// `TCP_INIT_CWND`: the smallest window `tcp_sndbuf_expand` provisions for.
const TCP_INIT_CWND: u64 = 10;

/// `tcp_sndbuf_expand`'s memory per segment for a peer MSS (`mss_clamp`) of `mss_clamp`
/// bytes: the worst case of one skb per frame with a power-of-two head.
pub fn per_mss(mss_clamp: u64) -> u64 {
    (mss_clamp + MAX_TCP_HEADER + SKB_SHARED_INFO).next_power_of_two() + SK_BUFF
}

/// A socket's send buffer (`sk_sndbuf`) and its autotuning (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SndBuf {
    /// `sk_sndbuf`, bytes.
    size: u64,
    /// `tcp_wmem[2]`: the autotuning ceiling; equal to the start without autotuning.
    max: u64,
    /// [`per_mss`] of the connection's MSS.
    per_mss: u64,
}

impl SndBuf {
    /// A buffer of `initial` bytes (`tcp_wmem[1]`) autotuned up to `max` (`tcp_wmem[2]`;
    /// `None`: fixed) for a peer MSS of `mss_clamp` bytes.
    pub fn new(initial: u64, max: Option<u64>, mss_clamp: u64) -> SndBuf {
        SndBuf {
            size: initial,
            max: max.unwrap_or(initial).max(initial),
            per_mss: per_mss(mss_clamp),
        }
    }

    /// `sk_sndbuf`, bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// `tcp_sndbuf_expand` with a congestion window of `cwnd_segments`: the buffer grows to
    /// `2 · max(TCP_INIT_CWND, cwnd) · per_mss`, capped at `tcp_wmem[2]`; it never shrinks.
    /// (`reordering + 1`, Linux's third term, stays below `TCP_INIT_CWND` unless reordering
    /// was detected; this model's reordering degree is the DupThresh, 3.)
    pub fn expand(&mut self, cwnd_segments: u64) {
        let want = 2 * cwnd_segments.max(TCP_INIT_CWND) * self.per_mss;
        if self.size < want {
            self.size = want.min(self.max).max(self.size);
        }
    }

    /// `__sk_stream_memory_free`: the socket takes more data while `queued` bytes are below
    /// the buffer.
    pub fn memory_free(&self, queued: u64) -> bool {
        queued < self.size
    }

    /// `__sk_stream_is_writeable`: a waiting writer is woken (and `poll` says `EPOLLOUT`)
    /// when the free space is at least half of what is queued and memory is free.
    pub fn writeable(&self, queued: u64) -> bool {
        self.memory_free(queued) && self.size - queued >= queued >> 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tcp_sndbuf_expand` on x86-64 Linux 6.1 (distribution configuration) for a 1 460 B
    /// peer MSS (1 448 B of payload with timestamps): per_mss = roundup_pow_of_two(1460 +
    /// 320 + 320) + 256 = 4096 + 256 = 4352; at establishment (cwnd 10) the buffer becomes
    /// 2·10·4352 = 87 040 B; it reaches `tcp_wmem[2]` = 4 MiB at cwnd 482 (2·482·4352 =
    /// 4 195 328 ≥ 4 194 304) and never exceeds it.
    #[test]
    fn tcp_sndbuf_expand_of_linux_6_1() {
        assert_eq!(per_mss(1460), 4352);
        let mut b = SndBuf::new(16_384, Some(4 << 20), 1460);
        assert_eq!(b.size(), 16_384);
        b.expand(4); // below TCP_INIT_CWND: provisions for 10
        assert_eq!(b.size(), 87_040);
        b.expand(481);
        assert_eq!(b.size(), 2 * 481 * 4352);
        b.expand(482);
        assert_eq!(b.size(), 4 << 20);
        b.expand(10);
        assert_eq!(b.size(), 4 << 20, "expansion never shrinks the buffer");
    }

    /// The live run's kernel (6.18, a minimal configuration: `MAX_TCP_HEADER` below 268 B)
    /// reported `tb` (sk_sndbuf) 129 024 at cwnd 28 and 2 087 424 at cwnd 453 (`ss -tm`,
    /// docs/live.md adwiser-g): 2·28·2304 and 2·453·2304, a per_mss of 2 048 + 256; the
    /// formula is the same, only `MAX_TCP_HEADER` differs, and the 4 MiB cap is reached at
    /// cwnd 911 instead of 482.
    #[test]
    fn the_live_kernels_per_mss_is_the_same_formula_with_a_smaller_header() {
        let live = (1460u64 + 192 + SKB_SHARED_INFO).next_power_of_two() + SK_BUFF;
        assert_eq!(live, 2304);
        assert_eq!(2 * 28 * live, 129_024);
        assert_eq!(2 * 453 * live, 2_087_424);
    }

    /// `__sk_stream_is_writeable`: with a 4 MiB buffer a waiting writer wakes once the
    /// queue has fallen to ⅔ of it (free ≥ queued/2), not before; `__sk_stream_memory_free`
    /// lets a running writer add data up to the full buffer.
    #[test]
    fn a_waiting_writer_wakes_at_two_thirds_of_the_buffer() {
        let b = SndBuf::new(4 << 20, None, 1460);
        let size = 4u64 << 20;
        let two_thirds = size * 2 / 3; // 2 796 202
        assert!(b.writeable(two_thirds));
        assert!(!b.writeable(two_thirds + 2));
        assert!(b.memory_free(size - 1));
        assert!(!b.memory_free(size));
        assert!(!b.writeable(size));
    }
}

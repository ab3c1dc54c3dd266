//! `airqueue live --pcap`: one capture file per real host, `<dir>/<node>.pcap`, holding what
//! `tcpdump -i aq0` inside that host's namespace would see — the packets the host wrote
//! (recorded when the loop read them from its TUN) and the packets it received (their
//! bytes as written to its TUN, after the TTL/ECN write-back, recorded when `write(2)` was
//! called). Full bytes, nanosecond timestamps in model time (CLOCK_MONOTONIC since the
//! run's origin; `summary.json` gives the wall-clock origin), `LINKTYPE_RAW` (bare IPv4).
//!
//! The loop only copies each packet into a per-host chunk (16-byte record header + bytes,
//! the savefile format of pcap-savefile(5), little-endian, magic `0xa1b23c4d`); full chunks
//! go to a writer thread that does the file I/O, so no `write(2)` to disk ever sits between
//! two packets of the loop. The writer thread is started before the loop moves to real-time
//! scheduling and would not inherit it anyway (`SCHED_RESET_ON_FORK`, `live::sched`).
//! Chunks come back to the loop for reuse, so the steady state allocates nothing.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

use pcap_file::pcap::PcapHeader;
use pcap_file::{DataLink, Endianness, TsResolution};

use crate::engine::SimTime;

/// A chunk is handed to the writer once it holds this many bytes.
const CHUNK: usize = 256 * 1024;
/// Largest packet a TUN read returns (the loop's buffer) plus a record header.
const MAX_RECORD: usize = 65_536 + 16;

/// A finished capture file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapFile {
    pub node: String,
    pub path: PathBuf,
    /// Packets recorded (read from the host plus written to it).
    pub packets: u64,
}

/// The capture files of the real hosts, by index (the loop's order of TUNs).
pub struct HostPcaps {
    files: Vec<PcapFile>,
    chunks: Vec<Vec<u8>>,
    to_writer: Option<Sender<(usize, Vec<u8>)>>,
    spare: Receiver<Vec<u8>>,
    writer: Option<JoinHandle<io::Result<()>>>,
}

impl HostPcaps {
    /// Creates `<dir>/<node>.pcap` for each node (with its file header) and starts the
    /// writer thread.
    pub fn create(dir: &Path, nodes: &[String]) -> io::Result<HostPcaps> {
        let header = PcapHeader {
            snaplen: MAX_RECORD as u32 - 16,
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..Default::default()
        };
        let mut out = Vec::with_capacity(nodes.len());
        let mut files = Vec::with_capacity(nodes.len());
        for node in nodes {
            let path = dir.join(format!("{node}.pcap"));
            let mut f = File::create(&path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            header.write_to(&mut f).map_err(io::Error::other)?;
            out.push(f);
            files.push(PcapFile {
                node: node.clone(),
                path,
                packets: 0,
            });
        }
        let (to_writer, from_loop) = channel::<(usize, Vec<u8>)>();
        let (back, spare) = channel::<Vec<u8>>();
        let writer = std::thread::Builder::new()
            .name("airqueue-pcap".into())
            .spawn(move || -> io::Result<()> {
                let mut error = None;
                for (i, mut chunk) in from_loop {
                    if error.is_none() {
                        error = out[i].write_all(&chunk).err();
                    }
                    chunk.clear();
                    let _ = back.send(chunk);
                }
                for f in &mut out {
                    f.flush()?;
                }
                error.map_or(Ok(()), Err)
            })?;
        Ok(HostPcaps {
            chunks: (0..nodes.len())
                .map(|_| Vec::with_capacity(CHUNK + MAX_RECORD))
                .collect(),
            files,
            to_writer: Some(to_writer),
            spare,
            writer: Some(writer),
        })
    }

    /// Records `bytes` at model time `t` in host `i`'s file.
    #[inline]
    pub fn record(&mut self, i: usize, t: SimTime, bytes: &[u8]) {
        let c = &mut self.chunks[i];
        let len = bytes.len() as u32;
        let sec = (t.0 / 1_000_000_000) as u32;
        let nsec = (t.0 % 1_000_000_000) as u32;
        for v in [sec, nsec, len, len] {
            c.extend_from_slice(&v.to_le_bytes());
        }
        c.extend_from_slice(bytes);
        self.files[i].packets += 1;
        if c.len() >= CHUNK {
            self.hand_over(i);
        }
    }

    fn hand_over(&mut self, i: usize) {
        let fresh = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK + MAX_RECORD));
        let full = std::mem::replace(&mut self.chunks[i], fresh);
        if let Some(tx) = &self.to_writer {
            // The writer only stops when we drop the sender, so this cannot fail.
            let _ = tx.send((i, full));
        }
    }

    /// Writes what is left, waits for the writer and returns the files.
    pub fn finish(mut self) -> io::Result<Vec<PcapFile>> {
        for i in 0..self.chunks.len() {
            if !self.chunks[i].is_empty() {
                self.hand_over(i);
            }
        }
        self.to_writer = None;
        if let Some(w) = self.writer.take() {
            w.join()
                .map_err(|_| io::Error::other("the pcap writer panicked"))??;
        }
        Ok(std::mem::take(&mut self.files))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcap::PcapReader;

    #[test]
    fn files_read_back_with_pcap_file_with_every_record() {
        let dir = std::env::temp_dir().join(format!("aq-pcap-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = HostPcaps::create(&dir, &["a".into(), "b".into()]).unwrap();
        // Enough to fill several chunks of a, so the writer sees them out of order with b.
        let big = vec![0x45u8; 1500];
        for k in 0..600u64 {
            p.record(0, SimTime(1_000_000_000 * 3 + k * 1_000 + 7), &big);
            if k % 100 == 0 {
                p.record(1, SimTime(k), &[0x45, 1, 2, k as u8]);
            }
        }
        let files = p.finish().unwrap();
        assert_eq!(files[0].packets, 600);
        assert_eq!(files[1].packets, 6);
        let mut r = PcapReader::new(File::open(dir.join("a.pcap")).unwrap()).unwrap();
        assert_eq!(r.header().datalink, DataLink::RAW);
        assert_eq!(r.header().ts_resolution, TsResolution::NanoSecond);
        let mut n = 0u64;
        while let Some(pkt) = r.next_packet() {
            let pkt = pkt.unwrap();
            assert_eq!(
                pkt.timestamp.as_nanos() as u64,
                3_000_000_000 + n * 1_000 + 7
            );
            assert_eq!(&pkt.data[..], &big[..]);
            assert_eq!(pkt.orig_len, 1500);
            n += 1;
        }
        assert_eq!(n, 600);
        let mut r = PcapReader::new(File::open(dir.join("b.pcap")).unwrap()).unwrap();
        let mut seen = Vec::new();
        while let Some(pkt) = r.next_packet() {
            seen.push(pkt.unwrap().data[3]);
        }
        assert_eq!(seen, vec![0, 100, 200, 44, 144, 244]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

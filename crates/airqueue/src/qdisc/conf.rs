//! The list of queueing disciplines by their `tc` names (`kind = "tbf"`), as Linux's
//! `register_qdisc` lists each `sch_*.c`: every discipline owns its parameter struct in its
//! own file (`tbf.rs::TbfConf`), and the scenario format (`crate::scenario`) imports this
//! list, never the reverse. The doc comments are user documentation (the JSON Schema).

crate::kind_enum! {
    /// The queueing disciplines, by their `tc` names. Each discipline's parameters, with
    /// Linux's defaults, are documented in its own file under `qdisc/`.
    pub enum QdiscConf as "qdisc kind" {
        /// Packet-limited FIFO with tail drop (Linux `sch_fifo.c`, `pfifo`).
        "pfifo" => Pfifo(crate::qdisc::PfifoConf),
        /// Byte-limited FIFO with tail drop (Linux `bfifo`).
        "bfifo" => Bfifo(crate::qdisc::BfifoConf),
        /// Packet-limited FIFO that drops the oldest packet when full (Linux `pfifo_head_drop`).
        "pfifo_head_drop" => PfifoHeadDrop(crate::qdisc::PfifoHeadDropConf),
        /// Controlled Delay AQM on one FIFO (Linux `sch_codel.c`, RFC 8289).
        "codel" => Codel(crate::qdisc::CodelConf),
        /// Flow queueing with a CoDel per flow and a DRR favouring new flows (Linux
        /// `sch_fq_codel.c`, RFC 8290).
        "fq_codel" => FqCodel(crate::qdisc::FqCodelConf),
        /// Token bucket shaper with an optional peak rate over a child qdisc (Linux
        /// `sch_tbf.c`).
        "tbf" => Tbf(crate::qdisc::TbfConf),
        /// Stochastic fairness queueing: flows hashed into slots served round robin (Linux
        /// `sch_sfq.c`).
        "sfq" => Sfq(crate::qdisc::SfqConf),
        /// Start-time fair queueing with weights and virtual lengths (Goyal et al. 1996;
        /// the scheduler of ADWISER, seed 002), optionally at a fixed service rate.
        "stfq" => Stfq(crate::qdisc::StfqConf),
        /// Worst-case fair weighted fair queueing (WF²Q+, Bennett & Zhang 1996), the
        /// reference fair queue.
        "wf2q+" => Wf2qPlus(crate::qdisc::Wf2qPlusConf),
        /// Random Early Detection over a byte-limited FIFO (Floyd & Jacobson 1993; Linux
        /// `sch_red.c`).
        "red" => Red(crate::qdisc::RedConf),
        /// Three FIFO bands chosen by skb->priority through the fixed priomap; Linux's classic
        /// default qdisc (`pfifo_fast`).
        "pfifo_fast" => PfifoFast(crate::qdisc::PfifoFastConf),
        /// Strict priority over bands, each any child qdisc; packets go to a band by `match`,
        /// else by priomap[skb->priority] (Linux `sch_prio.c`). Lower bands can starve.
        "prio" => Prio(crate::qdisc::PrioConf),
        /// Deficit Round Robin over classes with per-class quanta and child qdiscs;
        /// unclassified packets are dropped (Linux `sch_drr.c`).
        "drr" => Drr(crate::qdisc::DrrConf),
        /// Hierarchical Token Bucket: a class tree with rate/ceil shaping, borrowing from
        /// ancestors, prio for excess, leaves with child qdiscs (Linux `sch_htb.c`).
        "htb" => Htb(crate::qdisc::HtbConf),
        /// Dynamic Fair Queuing (seed 003): per-destination-host queues served round robin,
        /// wired hosts' packets dropped with P_d = 1 − (B_wireless/B_wired)·(RTT_wireless/
        /// RTT_wired); hosts classified by the RTTs of the gateway's pings (a node hook).
        "dfq" => Dfq(crate::qdisc::DfqConf),
        /// Deficit Round Robin over per-destination-host queues (one class per host, made
        /// as hosts appear): the per-host fairness baseline.
        "host_drr" => HostDrr(crate::qdisc::HostDrrConf),
        /// CAKE (Linux `sch_cake.c`): DRR++ flow queueing with COBALT AQM, host isolation
        /// (triple-isolate, dual-srchost, dual-dsthost, …), diffserv tins and a shaper.
        "cake" => Cake(crate::qdisc::CakeConf),
        /// ADWISER's scheduler (seed 002 §III): VoIP priority with admission control, an
        /// A-WAN inbound server at 90 % of the WAN rate, and the A-WLAN STFQ on virtual
        /// bits at an adaptive rate C learned by polling the AP's association table.
        "adwiser" => Adwiser(Box<crate::qdisc::AdwiserConf>),
        /// Channel-condition independent fair queueing (Ng, Stoica & Zhang, INFOCOM'98) in
        /// seed 000's two versions, CIF-Simple and CIF-Complete: an STFQ reference system,
        /// per-session lag, compensation of sessions that saw a bad channel.
        "cif-q" => CifQ(crate::qdisc::CifQConf),
        /// BoTh-WiN (seed 000 §3.1, Algorithms 1–2): on a virtual device over a Bluetooth
        /// and a WLAN interface, per-flow virtual times, rate-based interference detection
        /// and the two-of-three rule between the interfaces.
        "btwn" => Btwn(crate::qdisc::BtwnConf),
        /// CAWN (seed 000 §3.2, Algorithms 3–4): one per interface, cooperating through a
        /// flag board; the WLAN side reads its stations' link quality (IW_SPY) and both
        /// skip one dequeue when it drops.
        "cawn" => Cawn(crate::qdisc::CawnConf),
    }
}

impl Default for QdiscConf {
    /// What Linux attaches to a device without a qdisc of its own here: `pfifo` with the
    /// device's txqueuelen (1000).
    fn default() -> Self {
        QdiscConf::Pfifo(crate::qdisc::PfifoConf::default())
    }
}

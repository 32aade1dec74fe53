"""Simulated machines for SimGrid SMPI, named by collplan's topology strings.

A platform is generated from the same text `collplan compile --topology`
takes, so the plan and the machine it runs on cannot disagree:

  torus:8x8        a torus of nodes, one rank per node, 400 Gb/s full-duplex
                   links, 400 ns per hop (100 ns of cable and 300 ns of
                   router, the Swing paper's SST set-up; collplan's default
                   --alpha-hop);
  nodes:64x16      64 nodes of 16 ranks: one 5.56 GB/s link per node into a
                   non-blocking switch, shared by the node's ranks; each
                   rank a host with its own 10 GB/s port (a copy through
                   shared memory), 830 ns between two ranks of a node (the
                   Blue-Waters-like values of docs/cost-model.md);
  flat:48          48 single-rank hosts on a non-blocking switch, 1 us
                   from host to host, 400 Gb/s links;
  fattree:64       64 single-rank hosts under a two-level fat tree of
                   8-port leaves (full bisection), 400 Gb/s links, 250 ns
                   per link (4 links from leaf to leaf: 1 us);
  fattree:64:4     the same tree tapered 4:1: each leaf of 8 hosts has
                   8/4 = 2 uplinks (one to each of 2 spines), so traffic
                   between leaves shares a quarter of the bandwidth the
                   hosts inject, as in the oversubscribed fat trees where
                   Bine trees (SC'25) measure their gains; the model sees
                   the same flat machine (it knows no taper).

Every platform also says which collplan cost flags describe it, so the
model's prediction and the simulation see one machine. Every latency is a
link's: SimGrid sums them along a message's route. (SMPI's per-message
overheads, smpi/os and smpi/or, are left at 0: they are charged in ways that
depend on its eager/rendezvous protocol switch, which no schedule model sees.)
"""

import os
from dataclasses import dataclass, field

# Link and host figures; the README's evaluation section repeats them.
TORUS_LINK_BW = 50e9  # bytes/s: 400 Gb/s
TORUS_HOP_LAT = 400e-9  # s per link
SWITCH_ALPHA = 1e-6  # s from host to host through a switch or fat tree
NODE_LINK_BW = 5.56e9  # bytes/s: a node's injection limit R_N
NODE_LINK_LAT = 2e-6  # s: node -> switch -> node is 2 links = 4 us
INTRA_BW = 10e9  # bytes/s: a copy through shared memory
INTRA_LAT = 830e-9  # s
# The simulated host computes as fast as this machine: SMPI times the real
# reduction code and charges it at host speed / smpi/host-speed = 1.
HOST_SPEED = "1Gf"


@dataclass
class Platform:
    name: str  # file-name safe, e.g. "torus-8x8"
    topology: str  # collplan --topology
    ppn: int
    ranks: int
    xml: str
    hosts: list  # one host name per rank: the hostfile
    smpi_cfg: list = field(default_factory=list)  # smpirun --cfg=...
    cost_flags: list = field(default_factory=list)  # collplan cost flags

    def hostfile(self):
        return "".join(h + "\n" for h in self.hosts)

    def write_files(self, work):
        """smpirun's -platform and -hostfile files, written into work."""
        files = (os.path.join(work, "platform.xml"),
                 os.path.join(work, "hostfile"))
        with open(files[0], "w") as f:
            f.write(self.xml)
        with open(files[1], "w") as f:
            f.write(self.hostfile())
        return files


def _xml(body):
    return ("<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n"
            f"  <zone id=\"world\" routing=\"Full\">\n{body}  </zone>\n"
            "</platform>\n")


def _cluster(count, extra):
    return (f"    <cluster id=\"c\" prefix=\"node-\" radical=\"0-{count - 1}\""
            f" suffix=\"\" speed=\"{HOST_SPEED}\" {extra}/>\n")


# SMPI settings shared by every platform: CM02 is the plain latency +
# size/bandwidth model with max-min sharing (no empirical correction
# factors), cross-traffic off so a link's two directions are independent.
# smpi/test:0 because SMPI otherwise charges 100 us of simulated time to
# every MPI_Test that finds a request unfinished (its model of a polling
# loop), which MPI_Waitsome calls on every pending request.
COMMON_CFG = [
    "network/model:CM02",
    "network/crosstraffic:0",
    "smpi/test:0",
    "smpi/host-speed:" + HOST_SPEED,
    "smpi/privatization:no",
]


# A message from a host to itself (MPICH's alltoall posts one to self)
# needs a route: a copy through memory, as inside a node.
_LOOPBACK = (f" loopback_bw=\"{INTRA_BW:.6g}Bps\""
             f" loopback_lat=\"{INTRA_LAT:.6g}s\"")


def _dims(text):
    dims = [int(x) for x in text.split("x")]
    if not dims or any(d < 1 for d in dims):
        raise ValueError(f"bad dimensions '{text}'")
    return dims


def make(spec):
    """The Platform for a topology string (see the module text)."""
    kind, _, arg = spec.partition(":")
    if kind == "torus":
        dims = _dims(arg)
        n = 1
        for d in dims:
            n *= d
        # collplan numbers nodes row-major (the last dimension varies
        # fastest); SimGrid's first dimension varies fastest: reverse.
        topo = ",".join(str(d) for d in reversed(dims))
        xml = _xml(_cluster(
            n, f"topology=\"TORUS\" topo_parameters=\"{topo}\""
            f" bw=\"{TORUS_LINK_BW:.6g}Bps\" lat=\"{TORUS_HOP_LAT:.6g}s\""
            f"{_LOOPBACK} sharing_policy=\"SPLITDUPLEX\""))
        return Platform(
            name="torus-" + arg, topology=spec, ppn=1, ranks=n, xml=xml,
            hosts=[f"node-{i}" for i in range(n)],
            smpi_cfg=list(COMMON_CFG),
            # SimGrid routes a tie (half-way round) the + way.
            cost_flags=["--alpha", "0", "--alpha-hop",
                        f"{TORUS_HOP_LAT:.6g}", "--beta",
                        f"{1 / TORUS_LINK_BW:.6g}", "--torus-ties",
                        "positive"])
    if kind == "nodes":
        nodes, ppn = _dims(arg)
        # One host per rank, not one per node: SimGrid's loopback link is a
        # fat pipe (every flow at full bandwidth), and the MPI transport
        # moves a reduced message in 512 KiB pieces, so on a node-wide
        # loopback a 32 MiB message within a node ran at 64 times 10 GB/s.
        # Here each rank has its own full-duplex port (a copy at
        # INTRA_BW: its pieces and its other messages share it), a node's
        # ranks share the node's uplink to the switch, and the latencies
        # add up to INTRA_LAT inside a node and 2 * NODE_LINK_LAT between.
        rank_lat = INTRA_LAT / 2
        up_lat = NODE_LINK_LAT - rank_lat
        body = "".join(
            f"    <cluster id=\"node-{n}\" prefix=\"node-{n}-\""
            f" radical=\"0-{ppn - 1}\" suffix=\"\" speed=\"{HOST_SPEED}\""
            f" bw=\"{INTRA_BW:.6g}Bps\" lat=\"{rank_lat:.6g}s\""
            f"{_LOOPBACK} sharing_policy=\"SPLITDUPLEX\""
            f" router_id=\"router-{n}\"/>\n"
            for n in range(nodes))
        body += "".join(
            f"    <link id=\"up-{n}\" bandwidth=\"{NODE_LINK_BW:.6g}Bps\""
            f" latency=\"{up_lat:.6g}s\" sharing_policy=\"SPLITDUPLEX\"/>\n"
            for n in range(nodes))
        body += "".join(
            f"    <zoneRoute src=\"node-{a}\" dst=\"node-{b}\""
            f" gw_src=\"router-{a}\" gw_dst=\"router-{b}\""
            " symmetrical=\"NO\">"
            f"<link_ctn id=\"up-{a}\" direction=\"UP\"/>"
            f"<link_ctn id=\"up-{b}\" direction=\"DOWN\"/></zoneRoute>\n"
            for a in range(nodes) for b in range(nodes) if a != b)
        return Platform(
            name=f"nodes-{nodes}x{ppn}", topology=spec, ppn=ppn,
            ranks=nodes * ppn, xml=_xml(body),
            hosts=[f"node-{r // ppn}-{r % ppn}" for r in range(nodes * ppn)],
            smpi_cfg=list(COMMON_CFG),
            cost_flags=["--alpha", f"{2 * NODE_LINK_LAT:.6g}", "--beta",
                        f"{1 / NODE_LINK_BW:.6g}", "--injection-bandwidth",
                        f"{NODE_LINK_BW:.6g}", "--alpha-intra",
                        f"{INTRA_LAT:.6g}", "--beta-intra",
                        f"{1 / INTRA_BW:.6g}"])
    if kind in ("flat", "fattree"):
        count, _, taper_text = arg.partition(":")
        n = int(count)
        taper = int(taper_text) if taper_text else 1
        if kind == "flat" and taper_text:
            raise ValueError(f"flat:{arg}: a taper is a fat tree's")
        if kind == "flat":
            extra = (f"bw=\"{TORUS_LINK_BW:.6g}Bps\""
                     f" lat=\"{SWITCH_ALPHA / 2:.6g}s\""
                     f" bb_bw=\"1e15Bps\" bb_lat=\"0s\"{_LOOPBACK}"
                     " sharing_policy=\"SPLITDUPLEX\"")
        else:
            leaves = -(-n // 8)
            if leaves * 8 != n:
                raise ValueError("fattree:N needs N a multiple of 8")
            if taper < 1 or 8 % taper:
                raise ValueError(f"fattree:{arg}: the taper must divide 8")
            # SimGrid's levels; hosts per leaf, leaves per spine; uplinks
            # per host, per leaf (one to each spine); parallel links.
            extra = (f"topology=\"FAT_TREE\" topo_parameters="
                     f"\"2;8,{leaves};1,{8 // taper};1,1\""
                     f" bw=\"{TORUS_LINK_BW:.6g}Bps\""
                     f" lat=\"{SWITCH_ALPHA / 4:.6g}s\"")
        return Platform(
            name=f"{kind}-{n}" + (f"-taper{taper}" if taper > 1 else ""),
            topology="flat", ppn=1, ranks=n,
            xml=_xml(_cluster(n, extra)),
            hosts=[f"node-{i}" for i in range(n)],
            smpi_cfg=list(COMMON_CFG),
            cost_flags=["--alpha", f"{SWITCH_ALPHA:.6g}",
                        "--beta", f"{1 / TORUS_LINK_BW:.6g}"])
    raise ValueError(f"unknown platform '{spec}' (torus:AxB..., nodes:NxPPN,"
                     " flat:P, fattree:P[:TAPER])")

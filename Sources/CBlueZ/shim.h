// beacon-provision: the one C entry point to BlueZ's libbluetooth (HCI, L2CAP, mgmt sockets).
// Macros and inline functions Swift cannot import are given fixed-type wrappers here.
#ifndef BEACON_PROVISION_CBLUEZ_SHIM_H
#define BEACON_PROVISION_CBLUEZ_SHIM_H

#include <sys/socket.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

/// HCI channels of `struct sockaddr_hci.hci_channel` (linux/net/bluetooth/hci_sock.c). bluetooth/hci.h
/// names only the raw channel; the user and control (mgmt) channels are given here.
static const unsigned short bp_hci_channel_raw = 0;
static const unsigned short bp_hci_channel_user = 1;
static const unsigned short bp_hci_channel_control = 3;
static const unsigned short bp_hci_dev_none = 0xffff;

/// L2CAP fixed channel of the Attribute Protocol on LE links (Core Vol 3 Part A §2.1).
static const unsigned short bp_att_cid = 4;

/// `socket(PF_BLUETOOTH, type, proto)` with SOCK_CLOEXEC.
static inline int bp_bt_socket(int type, int proto) {
  return socket(PF_BLUETOOTH, type | SOCK_CLOEXEC, proto);
}

/// Bind an HCI socket to (device, channel).
static inline int bp_hci_bind(int fd, unsigned short dev, unsigned short channel) {
  struct sockaddr_hci a = {0};
  a.hci_family = AF_BLUETOOTH;
  a.hci_dev = dev;
  a.hci_channel = channel;
  return bind(fd, (struct sockaddr *)&a, sizeof a);
}

/// Install an HCI filter passing the given packet type and events (all LE meta + command status/complete).
static inline int bp_hci_set_filter_events(int fd) {
  struct hci_filter f;
  hci_filter_clear(&f);
  hci_filter_set_ptype(HCI_EVENT_PKT, &f);
  hci_filter_all_events(&f);
  return setsockopt(fd, SOL_HCI, HCI_FILTER, &f, sizeof f);
}

/// Bind an L2CAP LE socket to the adapter address on a fixed CID (ATT = 4).
static inline int bp_l2cap_bind_le(int fd, const bdaddr_t *src, unsigned char src_type, unsigned short cid) {
  struct sockaddr_l2 a = {0};
  a.l2_family = AF_BLUETOOTH;
  a.l2_cid = htobs(cid);
  bacpy(&a.l2_bdaddr, src);
  a.l2_bdaddr_type = src_type;
  return bind(fd, (struct sockaddr *)&a, sizeof a);
}

/// Connect an L2CAP LE socket to a peer on a fixed CID. dst_type: BDADDR_LE_PUBLIC or BDADDR_LE_RANDOM.
static inline int bp_l2cap_connect_le(int fd, const bdaddr_t *dst, unsigned char dst_type, unsigned short cid) {
  struct sockaddr_l2 a = {0};
  a.l2_family = AF_BLUETOOTH;
  a.l2_cid = htobs(cid);
  bacpy(&a.l2_bdaddr, dst);
  a.l2_bdaddr_type = dst_type;
  return connect(fd, (struct sockaddr *)&a, sizeof a);
}

/// Accept on a listening L2CAP socket, returning the peer address and type.
static inline int bp_l2cap_accept(int fd, bdaddr_t *peer, unsigned char *peer_type) {
  struct sockaddr_l2 a = {0};
  socklen_t len = sizeof a;
  int c = accept4(fd, (struct sockaddr *)&a, &len, SOCK_CLOEXEC);
  if (c >= 0) {
    bacpy(peer, &a.l2_bdaddr);
    *peer_type = a.l2_bdaddr_type;
  }
  return c;
}

/// Set BT_SECURITY level (BT_SECURITY_LOW … HIGH) on an L2CAP socket.
static inline int bp_set_security(int fd, unsigned char level) {
  struct bt_security s = {0};
  s.level = level;
  return setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &s, sizeof s);
}

/// The connection's incoming/outgoing MTU as the kernel sees it (L2CAP_OPTIONS omtu/imtu).
static inline int bp_l2cap_get_omtu(int fd) {
  struct l2cap_options o = {0};
  socklen_t len = sizeof o;
  if (getsockopt(fd, SOL_L2CAP, L2CAP_OPTIONS, &o, &len) < 0) return -1;
  return o.omtu;
}

#endif

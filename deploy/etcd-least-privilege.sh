#!/bin/sh
# The etcd user the migration job needs, and nothing more: read and write on the migrated prefix.
# (walmigrate's start-up check reads that prefix; leases need no permission of their own.)
#
#   ETCDCTL_ENDPOINTS=https://etcd:2379 ETCDCTL_USER=root:ROOTPASS [ETCDCTL_CACERT=… ETCDCTL_CERT=… ETCDCTL_KEY=…] \
#   WALKIT_PASSWORD=… deploy/etcd-least-privilege.sh [PREFIX] [USER]
#
# then run the job with: walmigrate kine … --prefix PREFIX --user USER --password-file FILE (the password on its first line).
# Tested by walmigrate's LeastPrivilegeTest against a real etcd with auth enabled.
set -eu
prefix=${1:-/registry/}
user=${2:-walkit-migrate}
: "${WALKIT_PASSWORD:?set WALKIT_PASSWORD to the new user's password}"
export ETCDCTL_API=3
etcdctl role add "$user"
etcdctl role grant-permission "$user" --prefix=true readwrite "$prefix"
etcdctl user add "$user:$WALKIT_PASSWORD"
etcdctl user grant-role "$user" "$user"

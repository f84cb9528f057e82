#!/bin/sh
# docker-compose.yml's `backup` service: pg_dump of the database in its custom format, at
# start and then every BACKUP_INTERVAL (sleep's syntax: 24h, 6h, 30m), into BACKUP_DIR, each
# kept BACKUP_KEEP_DAYS days. libpq reads PGHOST, PGUSER, PGPASSWORD and PGDATABASE.
#   backup.sh              for ever (the service)
#   backup.sh once         one backup now, and the old ones removed
#   backup.sh restore FILE the database dropped, made anew and restored from FILE (stop the
#                          app first; it migrates a backup of an older version when it starts)
set -eu
dir=${BACKUP_DIR:-/backups}
keep=${BACKUP_KEEP_DAYS:-14}
every=${BACKUP_INTERVAL:-24h}
db=${PGDATABASE:-omaha}

# (each step checked: `set -e` does not apply inside a function called before `||`)
once() {
	file="$dir/omaha-$(date -u +%Y%m%dT%H%M%SZ).dump"
	# Written aside and renamed when complete: a file named *.dump is a whole backup.
	pg_dump --format=custom --no-owner --file="$file.partial" || return 1
	mv "$file.partial" "$file" || return 1
	echo "backup: wrote $file ($(du -h "$file" | cut -f1))"
	# -mtime +N: older than N+1 whole days.
	find "$dir" -maxdepth 1 -type f -name 'omaha-*.dump' -mtime +"$((keep - 1))" \
		-exec echo "backup: removing" {} \; -exec rm -f {} \;
	find "$dir" -maxdepth 1 -type f -name 'omaha-*.dump.partial' -mtime +0 -exec rm -f {} \;
}

[ "$keep" -ge 1 ] || { echo "backup: BACKUP_KEEP_DAYS must be 1 or more" >&2; exit 2; }

case "${1:-loop}" in
once)
	once || exit 1
	;;
restore)
	file=${2:?usage: backup.sh restore FILE}
	pg_restore --list "$file" >/dev/null
	dropdb --if-exists --force "$db"
	createdb "$db"
	pg_restore --no-owner --no-privileges --exit-on-error --single-transaction \
		--dbname="$db" "$file"
	echo "backup: restored $file into $db"
	;;
loop)
	while :; do
		once || echo "backup: failed; trying again in $every" >&2
		sleep "$every"
	done
	;;
*)
	echo "usage: backup.sh [once | restore FILE]" >&2
	exit 2
	;;
esac

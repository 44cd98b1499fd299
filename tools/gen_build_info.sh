#!/bin/sh
# Writes the build-info header only when its contents change, so that a
# rebuild without new commits does not relink everything.
out=$1
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
dirty=""
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	dirty="-dirty"
fi
tmp="$out.tmp.$$"
{
	echo "#define FS_VERSION \"0.1.0\""
	echo "#define FS_GIT_COMMIT \"$commit$dirty\""
	echo "#define FS_BUILD_DATE \"$(date -u +%Y-%m-%d)\""
	echo "#define FS_LIBFCGI_VERSION \"$(dpkg-query -W -f='${Version}' libfcgi-dev 2>/dev/null || echo unknown)\""
} > "$tmp"
if [ -f "$out" ] && cmp -s "$tmp" "$out"; then
	rm -f "$tmp"
else
	mv "$tmp" "$out"
fi

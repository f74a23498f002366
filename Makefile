# widgetd — build for deployment and install.
#
#   make                      release build, Swift runtime linked statically
#   make install              install under PREFIX (default /usr/local), into DESTDIR
#   make pam                  pam/pam_widgetd.so, the PAM module (C, libpam)
#   make uninstall            remove what install put there (configuration is kept)
#   make package              scripts/package: widgetd_VERSION_ARCH.deb (dpkg-buildpackage, debian/)
#   make test-systemd         scripts/test-systemd: the units under a real systemd
#   make completions          regenerate completions/ from the parsers (debug build)
#   make phosh-plugin         phosh/: libphosh-plugin-widgetd.so, phosh's lock-screen plugin (GTK 3)
#   make install-phosh-plugin install it into phosh's plugin directory, with its settings schema
#   make check-phosh-plugin   its reply parser's, stream's and settings' unit tests (phosh/test-*.c)
#   make install-providers    providers/: widgetd-provider-calendar, -media, -power (Python 3,
#                             GObject introspection), their user units and providers.d files
#                             (make install does it too; Debian: the widgetd-providers package)
#   make install-gnome-extension  gnome-shell/: the GNOME Shell extension widgetd@io.widgetd,
#                             with its settings schema and man page (nothing to build: GJS)
#   make uninstall-gnome-extension  remove it again
#   make check-gnome-extension  its unit tests under gjs (tests/gnome/test-format.js)
#   make plasma-plugin        plasma/: the KDE Plasma lock-screen wallpaper's QML module (C++, Qt 5)
#   make install-plasma-wallpaper  install the wallpaper io.widgetd.lockscreen and its QML module
#   make check-plasma-plugin  its unit tests: the reply parser and the card model
#                             (plasma/plugin/test-reply.cpp, test-cards.cpp)
#
# The installed binary needs only glibc, libsodium and libsystemd: the Swift runtime
# and FoundationEssentials (not full Foundation: no ICU) are linked into it
# (--static-swift-stdlib). Check with `make ldd`. It is one binary for both commands:
# widgetd, and widgetctl a symbolic link to it (main.swift picks by the name called),
# so that the runtime, most of each program, is installed once (docs/HACKING.md: 17 MB, not 32).
#
# Paths follow the GNU and systemd conventions. The configuration always goes under
# /etc/widgetd, whatever PREFIX is, because that is where the daemon looks.

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/widgetd
SYSCONFDIR  ?= /etc
SYSTEMDSYSTEMUNITDIR ?= $(LIBDIR)/systemd/system
SYSTEMDUSERUNITDIR   ?= $(LIBDIR)/systemd/user
SYSUSERSDIR  ?= $(LIBDIR)/sysusers.d
TMPFILESDIR  ?= $(LIBDIR)/tmpfiles.d
VARLINKDIR   ?= $(DATADIR)/widgetd/interfaces
BASHCOMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPLETIONDIR  ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPLETIONDIR ?= $(DATADIR)/fish/vendor_completions.d

SWIFT        ?= swift
SCRATCH      ?= .build-release
# --static-swift-stdlib still leaves libstdc++ and libgcc_s dynamic (the Swift
# runtime is C++). A directory holding only libstdc++.a, searched before the compiler's own,
# makes the linker take the archive; -static-libgcc does the same for the unwinder.
# No $$ORIGIN run path (installed binaries use the system's libraries only), and
# full RELRO as Debian builds its own binaries.
STATICCXX    := $(abspath $(SCRATCH))/static-c++
CC_FOR_LIBS  ?= $(or $(shell command -v clang 2>/dev/null),cc)
SWIFTFLAGS   ?= -c release --static-swift-stdlib --scratch-path $(SCRATCH) \
                --disable-local-rpath -Xlinker -z -Xlinker now \
                -Xswiftc -L$(STATICCXX) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
INSTALL      ?= install
# Set STRIP= to keep symbols (debian/rules does: dh_strip moves them to widgetd-dbgsym).
STRIP        ?= strip --strip-unneeded --remove-section=.comment --remove-section=.note

BUILT = $(SCRATCH)/release

# pam_widgetd.so (DESIGN §8), a small C module against libpam. It goes where libpam
# looks, whatever PREFIX is (pkg-config's libdir of pam: /lib/MULTIARCH on Debian),
# and its pam-auth-update profile where pam-auth-update reads them. install builds
# it (it needs only a C compiler), so `sudo make install` works after `make`.
CC          ?= cc
PAM_CFLAGS  ?= -O2 -g -Wall -Wextra -Wformat=2 -Wshadow -D_FORTIFY_SOURCE=2 -fstack-protector-strong
PAM_LDFLAGS ?= -Wl,-z,relro -Wl,-z,now -Wl,--no-undefined
PAMLIBDIR   := $(shell pkg-config --variable=libdir pam 2>/dev/null)
PAMMODULEDIR ?= $(or $(PAMLIBDIR),/lib/$(shell $(CC) -print-multiarch))/security
PAMCONFIGDIR ?= /usr/share/pam-configs
PAMBUILT     = $(SCRATCH)/pam

.PHONY: all build pam install install-daemon install-providers uninstall uninstall-providers ldd package test-systemd clean completions \
        phosh-plugin install-phosh-plugin uninstall-phosh-plugin check-phosh-plugin \
        install-gnome-extension uninstall-gnome-extension check-gnome-extension \
        plasma-plugin install-plasma-wallpaper uninstall-plasma-wallpaper check-plasma-plugin

all: build pam

pam: $(PAMBUILT)/pam_widgetd.so

# -fvisibility=hidden: only the pam_sm_* entry points are exported.
$(PAMBUILT)/pam_widgetd.so: pam/pam_widgetd.c pam/widgetd_json.c pam/widgetd_json.h
	@mkdir -p $(PAMBUILT)
	$(CC) $(PAM_CFLAGS) -std=gnu11 -fPIC -fvisibility=hidden -shared $(PAM_LDFLAGS) -o $@ \
	  pam/pam_widgetd.c pam/widgetd_json.c -lpam

# The lock-screen plugin for phosh (DESIGN §11), a GIO module phosh loads from its fixed
# plugin directory. It is not part of `all`: the daemon builds and installs without GTK
# (Debian: the separate binary package phosh-plugin-widgetd). Its settings schema goes
# where GSettings reads system schemas; install compiles them unless DESTDIR is set (a
# package's trigger does it then).
PHOSH_PC      = gtk+-3.0 json-glib-1.0 gio-unix-2.0 phosh-plugins
PHOSHPLUGINDIR ?= $(shell pkg-config --variable=lockscreen_plugins_dir phosh-plugins 2>/dev/null)
GSCHEMADIR    ?= $(DATADIR)/glib-2.0/schemas
PHOSH_CFLAGS  ?= -O2 -g -Wall -Wextra -Werror -Wformat=2 -Wshadow -D_FORTIFY_SOURCE=2 -fstack-protector-strong
PHOSHBUILT    = $(SCRATCH)/phosh
PHOSH_SOURCES = phosh/widgetd-plugin.c phosh/widgetd-lockscreen.c phosh/widgetd-stream.c phosh/widgetd-reply.c
PHOSH_HEADERS = phosh/widgetd-lockscreen.h phosh/widgetd-stream.h phosh/widgetd-reply.h
# Its preferences page, a second GIO module for phosh-mobile-settings (GTK 4, libadwaita),
# in phosh's prefs plugin directory; the plugin file names both.
PHOSH_PREFS_PC      = gtk4 libadwaita-1 json-glib-1.0 gio-unix-2.0 phosh-plugins
PHOSHPREFSDIR      ?= $(shell pkg-config --variable=lockscreen_prefs_dir phosh-plugins 2>/dev/null)
PHOSH_PREFS_SOURCES = phosh/widgetd-prefs.c phosh/widgetd-settings.c phosh/widgetd-stream.c phosh/widgetd-reply.c
PHOSH_PREFS_HEADERS = phosh/widgetd-prefs.h phosh/widgetd-settings.h phosh/widgetd-stream.h phosh/widgetd-reply.h

phosh-plugin: $(PHOSHBUILT)/libphosh-plugin-widgetd.so $(PHOSHBUILT)/libphosh-plugin-prefs-widgetd.so \
  $(PHOSHBUILT)/widgetd.plugin

# -fvisibility=hidden: only the GIO module's three entry points are exported.
$(PHOSHBUILT)/libphosh-plugin-widgetd.so: $(PHOSH_SOURCES) $(PHOSH_HEADERS)
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -fPIC -fvisibility=hidden -shared $(PAM_LDFLAGS) -o $@ \
	  $(PHOSH_SOURCES) $$(pkg-config --cflags --libs $(PHOSH_PC))

$(PHOSHBUILT)/libphosh-plugin-prefs-widgetd.so: $(PHOSH_PREFS_SOURCES) $(PHOSH_PREFS_HEADERS)
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -fPIC -fvisibility=hidden -shared $(PAM_LDFLAGS) -o $@ \
	  $(PHOSH_PREFS_SOURCES) $$(pkg-config --cflags --libs $(PHOSH_PREFS_PC)) -lm

$(PHOSHBUILT)/widgetd.plugin: phosh/widgetd.plugin.in
	@[ -n "$(PHOSHPLUGINDIR)" ] || { echo "phosh-dev is missing (pkg-config phosh-plugins)" >&2; exit 1; }
	@mkdir -p $(PHOSHBUILT)
	sed 's|@PLUGINDIR@|$(PHOSHPLUGINDIR)|; s|@PREFSDIR@|$(PHOSHPREFSDIR)|' $< > $@

$(PHOSHBUILT)/test-reply: phosh/test-reply.c phosh/widgetd-reply.c phosh/widgetd-reply.h
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -o $@ phosh/test-reply.c phosh/widgetd-reply.c \
	  $$(pkg-config --cflags --libs json-glib-1.0)

$(PHOSHBUILT)/test-stream: phosh/test-stream.c phosh/widgetd-stream.c phosh/widgetd-stream.h phosh/widgetd-reply.c \
  phosh/widgetd-reply.h
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -o $@ phosh/test-stream.c phosh/widgetd-stream.c phosh/widgetd-reply.c \
	  $$(pkg-config --cflags --libs json-glib-1.0 gio-unix-2.0)

# Against a real widgetd when WIDGETD_BIN and WIDGETCTL name its build (else skipped).
$(PHOSHBUILT)/test-settings: phosh/test-settings.c phosh/test-daemon.c phosh/test-daemon.h phosh/widgetd-settings.c \
  phosh/widgetd-settings.h phosh/widgetd-stream.c phosh/widgetd-stream.h phosh/widgetd-reply.c phosh/widgetd-reply.h
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -o $@ phosh/test-settings.c phosh/test-daemon.c phosh/widgetd-settings.c \
	  phosh/widgetd-stream.c phosh/widgetd-reply.c $$(pkg-config --cflags --libs json-glib-1.0 gio-unix-2.0) -lm

# The preferences window itself (GTK 4): needs a display (scripts/test-phosh runs it
# inside its phoc) and a widgetd (as test-settings); skipped without either.
$(PHOSHBUILT)/test-prefs: phosh/test-prefs.c phosh/test-daemon.c phosh/test-daemon.h
	@mkdir -p $(PHOSHBUILT)
	$(CC) $(PHOSH_CFLAGS) -std=gnu11 -o $@ phosh/test-prefs.c phosh/test-daemon.c \
	  $$(pkg-config --cflags --libs $(PHOSH_PREFS_PC))

check-phosh-plugin: $(PHOSHBUILT)/test-reply $(PHOSHBUILT)/test-stream $(PHOSHBUILT)/test-settings
	$(PHOSHBUILT)/test-reply
	$(PHOSHBUILT)/test-stream
	$(PHOSHBUILT)/test-settings

install-phosh-plugin: phosh-plugin
	$(INSTALL) -D -m 0644 $(PHOSHBUILT)/libphosh-plugin-widgetd.so $(DESTDIR)$(PHOSHPLUGINDIR)/libphosh-plugin-widgetd.so
	if [ -n "$(STRIP)" ]; then $(STRIP) $(DESTDIR)$(PHOSHPLUGINDIR)/libphosh-plugin-widgetd.so; fi
	$(INSTALL) -D -m 0644 $(PHOSHBUILT)/libphosh-plugin-prefs-widgetd.so \
	  $(DESTDIR)$(PHOSHPREFSDIR)/libphosh-plugin-prefs-widgetd.so
	if [ -n "$(STRIP)" ]; then $(STRIP) $(DESTDIR)$(PHOSHPREFSDIR)/libphosh-plugin-prefs-widgetd.so; fi
	$(INSTALL) -D -m 0644 $(PHOSHBUILT)/widgetd.plugin $(DESTDIR)$(PHOSHPLUGINDIR)/widgetd.plugin
	$(INSTALL) -D -m 0644 phosh/sm.puri.phosh.plugins.widgetd.gschema.xml \
	  $(DESTDIR)$(GSCHEMADIR)/sm.puri.phosh.plugins.widgetd.gschema.xml
	$(INSTALL) -D -m 0644 man/phosh-plugin-widgetd.7 $(DESTDIR)$(MANDIR)/man7/phosh-plugin-widgetd.7
	if [ -z "$(DESTDIR)" ]; then glib-compile-schemas $(GSCHEMADIR); fi

uninstall-phosh-plugin:
	rm -f $(DESTDIR)$(PHOSHPLUGINDIR)/libphosh-plugin-widgetd.so $(DESTDIR)$(PHOSHPLUGINDIR)/widgetd.plugin
	rm -f $(DESTDIR)$(PHOSHPREFSDIR)/libphosh-plugin-prefs-widgetd.so
	rm -f $(DESTDIR)$(GSCHEMADIR)/sm.puri.phosh.plugins.widgetd.gschema.xml $(DESTDIR)$(MANDIR)/man7/phosh-plugin-widgetd.7
	if [ -z "$(DESTDIR)" ]; then glib-compile-schemas $(GSCHEMADIR); fi

# The GNOME Shell extension (DESIGN §15): JavaScript for GNOME Shell 43, installed where
# the shell finds system extensions (DATADIR/gnome-shell/extensions/UUID). Not part of
# `install` either (Debian: the binary package gnome-shell-extension-widgetd). Its settings
# schema goes where GSettings reads system schemas, compiled unless DESTDIR is set.
GNOMEEXTDIR   ?= $(DATADIR)/gnome-shell/extensions/widgetd@io.widgetd
GNOME_FILES   = gnome-shell/metadata.json gnome-shell/extension.js gnome-shell/card.js \
                gnome-shell/format.js gnome-shell/varlink.js gnome-shell/stylesheet.css

# The parts that need no shell (the reply parser, value and date text), under plain gjs.
check-gnome-extension:
	gjs -I gnome-shell tests/gnome/test-format.js

install-gnome-extension:
	$(INSTALL) -d $(DESTDIR)$(GNOMEEXTDIR)
	$(INSTALL) -m 0644 $(GNOME_FILES) $(DESTDIR)$(GNOMEEXTDIR)/
	$(INSTALL) -D -m 0644 gnome-shell/schemas/org.gnome.shell.extensions.widgetd.gschema.xml \
	  $(DESTDIR)$(GSCHEMADIR)/org.gnome.shell.extensions.widgetd.gschema.xml
	$(INSTALL) -D -m 0644 man/gnome-shell-extension-widgetd.7 $(DESTDIR)$(MANDIR)/man7/gnome-shell-extension-widgetd.7
	if [ -z "$(DESTDIR)" ]; then glib-compile-schemas $(GSCHEMADIR); fi

uninstall-gnome-extension:
	rm -rf $(DESTDIR)$(GNOMEEXTDIR)
	rm -f $(DESTDIR)$(GSCHEMADIR)/org.gnome.shell.extensions.widgetd.gschema.xml
	rm -f $(DESTDIR)$(MANDIR)/man7/gnome-shell-extension-widgetd.7
	if [ -z "$(DESTDIR)" ]; then glib-compile-schemas $(GSCHEMADIR); fi

# The KDE Plasma lock screen's wallpaper plugin (DESIGN §15): a KPackage (QML) that the
# greeter loads (kscreenlockerrc [Greeter] WallpaperPlugin=io.widgetd.lockscreen), and
# the QML module io.widgetd.lockscreen (C++, QLocalSocket) it imports to reach widgetd.
# Not part of `all` (Debian: the binary package plasma-wallpaper-widgetd).
QT_MOC        ?= $(or $(wildcard /usr/lib/qt5/bin/moc),moc)
PLASMA_PC     = Qt5Qml Qt5Network
PLASMA_CXXFLAGS ?= -O2 -g -std=c++17 -Wall -Wextra -Werror -Wformat=2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong
PLASMABUILT   = $(SCRATCH)/plasma
QMLDIR        ?= $(shell pkg-config --variable=libdir Qt5Qml 2>/dev/null)/qt5/qml
PLASMAWALLPAPERDIR ?= $(DATADIR)/plasma/wallpapers/io.widgetd.lockscreen
PLASMA_SOURCES = plasma/plugin/widgetdreply.cpp plasma/plugin/widgetdstream.cpp plasma/plugin/widgetdcards.cpp \
                 plasma/plugin/widgetdhost.cpp plasma/plugin/plugin.cpp
PLASMA_HEADERS = plasma/plugin/widgetdreply.h plasma/plugin/widgetdstream.h plasma/plugin/widgetdcards.h \
                 plasma/plugin/widgetdhost.h

plasma-plugin: $(PLASMABUILT)/libwidgetdlockscreenplugin.so

$(PLASMABUILT)/moc_%.cpp: plasma/plugin/%.h
	@mkdir -p $(PLASMABUILT)
	$(QT_MOC) $$(pkg-config --cflags-only-I $(PLASMA_PC)) $< -o $@

$(PLASMABUILT)/plugin.moc: plasma/plugin/plugin.cpp
	@mkdir -p $(PLASMABUILT)
	$(QT_MOC) $$(pkg-config --cflags-only-I $(PLASMA_PC)) $< -o $@

$(PLASMABUILT)/libwidgetdlockscreenplugin.so: $(PLASMA_SOURCES) $(PLASMA_HEADERS) \
    $(PLASMABUILT)/moc_widgetdstream.cpp $(PLASMABUILT)/moc_widgetdcards.cpp $(PLASMABUILT)/moc_widgetdhost.cpp \
    $(PLASMABUILT)/plugin.moc
	$(CXX) $(PLASMA_CXXFLAGS) -fPIC -fvisibility=hidden -shared $(PAM_LDFLAGS) -Iplasma/plugin -I$(PLASMABUILT) -o $@ \
	  $(PLASMA_SOURCES) $(PLASMABUILT)/moc_widgetdstream.cpp $(PLASMABUILT)/moc_widgetdcards.cpp \
	  $(PLASMABUILT)/moc_widgetdhost.cpp \
	  $$(pkg-config --cflags --libs $(PLASMA_PC))

$(PLASMABUILT)/test-reply: plasma/plugin/test-reply.cpp plasma/plugin/widgetdreply.cpp plasma/plugin/widgetdreply.h
	@mkdir -p $(PLASMABUILT)
	$(CXX) $(PLASMA_CXXFLAGS) -fPIC -o $@ plasma/plugin/test-reply.cpp plasma/plugin/widgetdreply.cpp \
	  $$(pkg-config --cflags --libs Qt5Core)

$(PLASMABUILT)/test-cards: plasma/plugin/test-cards.cpp plasma/plugin/widgetdcards.cpp plasma/plugin/widgetdcards.h \
    $(PLASMABUILT)/moc_widgetdcards.cpp
	$(CXX) $(PLASMA_CXXFLAGS) -fPIC -Iplasma/plugin -o $@ plasma/plugin/test-cards.cpp plasma/plugin/widgetdcards.cpp \
	  $(PLASMABUILT)/moc_widgetdcards.cpp $$(pkg-config --cflags --libs Qt5Core)

check-plasma-plugin: $(PLASMABUILT)/test-reply $(PLASMABUILT)/test-cards
	$(PLASMABUILT)/test-reply
	$(PLASMABUILT)/test-cards

install-plasma-wallpaper: plasma-plugin
	$(INSTALL) -D -m 0644 $(PLASMABUILT)/libwidgetdlockscreenplugin.so $(DESTDIR)$(QMLDIR)/io/widgetd/lockscreen/libwidgetdlockscreenplugin.so
	if [ -n "$(STRIP)" ]; then $(STRIP) $(DESTDIR)$(QMLDIR)/io/widgetd/lockscreen/libwidgetdlockscreenplugin.so; fi
	$(INSTALL) -D -m 0644 plasma/plugin/qmldir $(DESTDIR)$(QMLDIR)/io/widgetd/lockscreen/qmldir
	$(INSTALL) -D -m 0644 plasma/package/metadata.json $(DESTDIR)$(PLASMAWALLPAPERDIR)/metadata.json
	$(INSTALL) -D -m 0644 plasma/package/contents/ui/main.qml $(DESTDIR)$(PLASMAWALLPAPERDIR)/contents/ui/main.qml
	$(INSTALL) -D -m 0644 plasma/package/contents/config/main.xml $(DESTDIR)$(PLASMAWALLPAPERDIR)/contents/config/main.xml
	$(INSTALL) -D -m 0644 man/plasma-wallpaper-widgetd.7 $(DESTDIR)$(MANDIR)/man7/plasma-wallpaper-widgetd.7

uninstall-plasma-wallpaper:
	rm -rf $(DESTDIR)$(QMLDIR)/io/widgetd/lockscreen $(DESTDIR)$(PLASMAWALLPAPERDIR)
	rm -f $(DESTDIR)$(MANDIR)/man7/plasma-wallpaper-widgetd.7

build: $(STATICCXX)/libstdc++.a
	$(SWIFT) build $(SWIFTFLAGS) --product widgetd

$(STATICCXX)/libstdc++.a:
	@archive=$$($(CC_FOR_LIBS) -print-file-name=libstdc++.a); \
	  case "$$archive" in /*) ;; *) echo "libstdc++.a not found (install libstdc++-12-dev)" >&2; exit 1;; esac; \
	  mkdir -p $(STATICCXX) && ln -sf "$$archive" $@

# The binary's own shared libraries (DT_NEEDED): nothing but glibc, libsodium,
# libsystemd and tpm2-tss's ESAPI libraries (KeyProtection=tpm2) may appear (ldd also lists what libsystemd itself needs); and no symbol
# of full Foundation or ICU, which one `import Foundation` would bring back. It checks
# what is built and builds nothing, so that `WIDGETD_NO_BUILD=1 scripts/package`
# really skips the build: run `make` first.
ldd:
	@for b in widgetd; do \
	  [ -x $(BUILT)/$$b ] || { echo "$(BUILT)/$$b is missing: run make first" >&2; exit 1; }; \
	  needed=$$(readelf -d $(BUILT)/$$b | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs); \
	  echo "$$b needs: $$needed"; \
	  extra=$$(printf '%s\n' $$needed | \
	    grep -Ev '^(ld-linux-x86-64\.so\.2|lib(c|m|pthread|dl|rt)\.so\.[0-9]+|libsodium\.so\.[0-9]+|libsystemd\.so\.0|libtss2-(esys|tctildr|rc|mu)\.so\.[0-9]+)$$' || true); \
	  if [ -n "$$extra" ]; then echo "unexpected libraries in $$b: $$extra" >&2; exit 1; fi; \
	  if readelf -d $(BUILT)/$$b | grep -Eq '\((RPATH|RUNPATH)\)'; then echo "$$b has a run path" >&2; exit 1; fi; \
	  if nm $(BUILT)/$$b | grep -Eq 'icudt|FoundationInternationalization|10Foundation'; then \
	    echo "$$b links full Foundation or ICU: a shipped module imports Foundation, not FoundationEssentials" >&2; exit 1; fi; \
	done

# install does not build: build as yourself, install as root (`make && sudo make install`).
install: install-daemon install-providers

install-daemon: $(PAMBUILT)/pam_widgetd.so
	@[ -x $(BUILT)/widgetd ] || { echo "$(BUILT)/widgetd is missing: run make first" >&2; exit 1; }
	$(INSTALL) -D -m 0644 $(PAMBUILT)/pam_widgetd.so $(DESTDIR)$(PAMMODULEDIR)/pam_widgetd.so
	if [ -n "$(STRIP)" ]; then $(STRIP) $(DESTDIR)$(PAMMODULEDIR)/pam_widgetd.so; fi
	$(INSTALL) -D -m 0644 pam/widgetd.pam-config $(DESTDIR)$(PAMCONFIGDIR)/widgetd
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0755 $(BUILT)/widgetd $(DESTDIR)$(BINDIR)/
	if [ -n "$(STRIP)" ]; then $(STRIP) $(DESTDIR)$(BINDIR)/widgetd; fi
	ln -sf widgetd $(DESTDIR)$(BINDIR)/widgetctl
	# Units name the binaries by their path: point them at BINDIR.
	$(INSTALL) -d $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR) $(DESTDIR)$(SYSTEMDUSERUNITDIR)
	for u in systemd/*.service systemd/*.socket; do \
	  sed 's|/usr/bin/widgetd|$(BINDIR)/widgetd|g' $$u > $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/$${u##*/}; \
	  chmod 0644 $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/$${u##*/}; \
	done
	for u in systemd/user/widgetd.service systemd/user/widgetd.socket; do \
	  sed 's|/usr/bin/widgetd|$(BINDIR)/widgetd|g' $$u > $(DESTDIR)$(SYSTEMDUSERUNITDIR)/$${u##*/}; \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUSERUNITDIR)/$${u##*/}; \
	done
	$(INSTALL) -D -m 0644 systemd/widgetd.sysusers $(DESTDIR)$(SYSUSERSDIR)/widgetd.conf
	$(INSTALL) -D -m 0644 systemd/widgetd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/widgetd.conf
	# The configuration: the commented main file, and empty drop-in and provider
	# directories. Example providers are documentation: registering them would
	# name users that do not exist here.
	$(INSTALL) -d $(DESTDIR)$(SYSCONFDIR)/widgetd/widgetd.conf.d $(DESTDIR)$(SYSCONFDIR)/widgetd/providers.d
	$(INSTALL) -m 0644 config/widgetd.conf $(DESTDIR)$(SYSCONFDIR)/widgetd/widgetd.conf
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)/examples/providers.d $(DESTDIR)$(DOCDIR)/examples/timelines
	$(INSTALL) -m 0644 config/providers.d/*.conf $(DESTDIR)$(DOCDIR)/examples/providers.d/
	$(INSTALL) -m 0644 config/timelines/*.json $(DESTDIR)$(DOCDIR)/examples/timelines/
	$(INSTALL) -m 0644 README.md docs/TUTORIAL.md $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -d $(DESTDIR)$(VARLINKDIR)
	$(INSTALL) -m 0644 interfaces/*.varlink $(DESTDIR)$(VARLINKDIR)/
	$(INSTALL) -D -m 0644 man/widgetd.8 $(DESTDIR)$(MANDIR)/man8/widgetd.8
	$(INSTALL) -D -m 0644 man/widgetd.conf.5 $(DESTDIR)$(MANDIR)/man5/widgetd.conf.5
	$(INSTALL) -D -m 0644 man/widgetctl.1 $(DESTDIR)$(MANDIR)/man1/widgetctl.1
	$(INSTALL) -D -m 0644 man/io.widgetd.7 $(DESTDIR)$(MANDIR)/man7/io.widgetd.7
	$(INSTALL) -D -m 0644 man/pam_widgetd.8 $(DESTDIR)$(MANDIR)/man8/pam_widgetd.8
	# Completion scripts, generated by the parsers (tests check they are current):
	# bash-completion wants the bare name and no #! line (it sources the file), zsh
	# an underscore, fish NAME.fish.
	$(INSTALL) -d $(DESTDIR)$(BASHCOMPLETIONDIR)
	for p in widgetctl widgetd; do \
	  sed '1{/^#!/d}' completions/$$p.bash > $(DESTDIR)$(BASHCOMPLETIONDIR)/$$p; \
	  chmod 0644 $(DESTDIR)$(BASHCOMPLETIONDIR)/$$p; \
	  $(INSTALL) -D -m 0644 completions/$$p.zsh $(DESTDIR)$(ZSHCOMPLETIONDIR)/_$$p; \
	  $(INSTALL) -D -m 0644 completions/$$p.fish $(DESTDIR)$(FISHCOMPLETIONDIR)/$$p.fish; \
	done

# widgetd's own providers (DESIGN §14): Python 3 programs on GObject introspection. Their
# library, and the Python client's modules they use, go to a directory of their own
# (PROVIDERLIBDIR), which the launchers name; the providers.d files are templates for a
# user's ~/.config/widgetd/providers.d/ (copied as they are: without User=, a per-user
# widgetd takes its owner as the writer), kept under DATADIR.
PROVIDERS     = calendar media power
PROVIDERLIBDIR ?= $(LIBDIR)/widgetd/providers
PROVIDERCONFDIR ?= $(DATADIR)/widgetd/providers.d

install-providers:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSTEMDUSERUNITDIR) $(DESTDIR)$(PROVIDERLIBDIR)/widgetd_providers $(DESTDIR)$(PROVIDERLIBDIR)/widgetd
	$(INSTALL) -m 0644 providers/widgetd_providers/*.py $(DESTDIR)$(PROVIDERLIBDIR)/widgetd_providers/
	$(INSTALL) -m 0644 clients/python/widgetd/*.py $(DESTDIR)$(PROVIDERLIBDIR)/widgetd/
	for p in $(PROVIDERS); do \
	  sed 's|^LIBRARY = None$$|LIBRARY = "$(PROVIDERLIBDIR)"|' providers/bin/widgetd-provider-$$p > $(DESTDIR)$(BINDIR)/widgetd-provider-$$p; \
	  chmod 0755 $(DESTDIR)$(BINDIR)/widgetd-provider-$$p; \
	  sed 's|/usr/bin/widgetd|$(BINDIR)/widgetd|g' systemd/user/widgetd-provider-$$p.service > $(DESTDIR)$(SYSTEMDUSERUNITDIR)/widgetd-provider-$$p.service; \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUSERUNITDIR)/widgetd-provider-$$p.service; \
	done
	$(INSTALL) -d $(DESTDIR)$(PROVIDERCONFDIR)
	$(INSTALL) -m 0644 providers/providers.d/*.conf $(DESTDIR)$(PROVIDERCONFDIR)/
	$(INSTALL) -D -m 0644 man/widgetd-providers.8 $(DESTDIR)$(MANDIR)/man8/widgetd-providers.8
	for p in $(PROVIDERS); do \
	  echo '.so man8/widgetd-providers.8' > $(DESTDIR)$(MANDIR)/man8/widgetd-provider-$$p.8; \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man8/widgetd-provider-$$p.8; \
	done

uninstall-providers:
	for p in $(PROVIDERS); do \
	  rm -f $(DESTDIR)$(BINDIR)/widgetd-provider-$$p $(DESTDIR)$(SYSTEMDUSERUNITDIR)/widgetd-provider-$$p.service \
	    $(DESTDIR)$(MANDIR)/man8/widgetd-provider-$$p.8; \
	done
	rm -rf $(DESTDIR)$(PROVIDERLIBDIR) $(DESTDIR)$(PROVIDERCONFDIR)
	rmdir $(DESTDIR)$(LIBDIR)/widgetd 2>/dev/null || true
	rm -f $(DESTDIR)$(MANDIR)/man8/widgetd-providers.8

# Leaves /etc/widgetd (the administrator's) and /var/lib/widgetd (the data) alone.
uninstall: uninstall-providers
	rm -f $(DESTDIR)$(BINDIR)/widgetd $(DESTDIR)$(BINDIR)/widgetctl
	rm -f $(DESTDIR)$(PAMMODULEDIR)/pam_widgetd.so $(DESTDIR)$(PAMCONFIGDIR)/widgetd $(DESTDIR)$(MANDIR)/man8/pam_widgetd.8
	for u in systemd/*.service systemd/*.socket; do rm -f $(DESTDIR)$(SYSTEMDSYSTEMUNITDIR)/$${u##*/}; done
	for u in systemd/user/widgetd.service systemd/user/widgetd.socket; do rm -f $(DESTDIR)$(SYSTEMDUSERUNITDIR)/$${u##*/}; done
	rm -f $(DESTDIR)$(SYSUSERSDIR)/widgetd.conf $(DESTDIR)$(TMPFILESDIR)/widgetd.conf
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(VARLINKDIR)
	rmdir $(DESTDIR)$(DATADIR)/widgetd 2>/dev/null || true
	rm -f $(DESTDIR)$(MANDIR)/man8/widgetd.8 $(DESTDIR)$(MANDIR)/man5/widgetd.conf.5 $(DESTDIR)$(MANDIR)/man1/widgetctl.1 $(DESTDIR)$(MANDIR)/man7/io.widgetd.7
	rm -f $(DESTDIR)$(BASHCOMPLETIONDIR)/widgetctl $(DESTDIR)$(BASHCOMPLETIONDIR)/widgetd
	rm -f $(DESTDIR)$(ZSHCOMPLETIONDIR)/_widgetctl $(DESTDIR)$(ZSHCOMPLETIONDIR)/_widgetd
	rm -f $(DESTDIR)$(FISHCOMPLETIONDIR)/widgetctl.fish $(DESTDIR)$(FISHCOMPLETIONDIR)/widgetd.fish

# The committed completion scripts, from the current parsers.
completions:
	$(SWIFT) build --product widgetctl
	$(SWIFT) build --product widgetd
	for p in widgetctl widgetd; do for s in bash zsh fish; do \
	  .build/debug/$$p --generate-completion-script $$s > completions/$$p.$$s; \
	done; done

package:
	scripts/package

test-systemd:
	scripts/test-systemd

clean:
	rm -rf $(SCRATCH) dist

"""Well-known command names, for lines typed on a machine where the tool is not installed.

Generated once from the man1/man8 page names and bash-completion scripts of a Debian system plus
popular developer tools (package managers, cloud and container CLIs). Only weak evidence: a line
whose first word is here still needs command-shaped arguments or no English to count as a command.
"""

KNOWN_COMMANDS = frozenset(
    """
    30-systemd-environment-d-generator 7z 7za accessdb activate-global-python-argcomplete adb
    add-apt-repository add-shell addgnupghome addgroup addpart addr2line adduser age agetty alias
    amqp-consume amqp-declare-queue amqp-delete-queue amqp-get amqp-publish ansible ansible-playbook
    apk applygnupgdefaults appres appstreamcli apropos apt apt-add-repository apt-cache apt-cdrom
    apt-config apt-get apt-key apt-mark apt-secure apt-transport-http apt-transport-https
    apt-transport-mirror ar arch aria2c arp arpd artisan as asn1parse at autoconf automake awk aws
    az b2sum badblocks base32 base64 basename basenc bash bashbug bat bazel bc black blkdeactivate
    blkdiscard blkid blkzone blockdev brew bridge btop buck bugpoint bugpoint-14 bun bundle bunzip2
    busctl bzcat bzcmp bzdiff bzegrep bzexe bzfgrep bzgrep bzip2 bzip2recover bzless bzmore c++filt
    c89 c89-gcc c99 c99-gcc ca cabal cal capsh captoinfo captree cargo cat catman cc cd certbot
    chage chattr chcon chcpu chfn chgpasswd chgrp chmem chmod choco choom chown chpasswd chroot chrt
    chsh ciphers cksum clang clang++ clang-tblgen-14 clear clojure clusterdb cmake cmp cms code col
    colcrt colrm column comm compose composer conda convert cordova corelist cp cpack cpan cpan5
    cpanm cpgr cppw cqlsh createdb createuser crl crl2pkcs7 crontab cscope cscope-indexer csplit
    ctags ctags-universal ctest ctrlaltdel ctstat curl curlie cut dart dash date dbilogstrip dbiprof
    dbiproxy dbus-cleanup-sockets dbus-daemon dbus-monitor dbus-run-session dbus-send
    dbus-update-activation-environment dbus-uuidgen dcb dcb-app dcb-buffer dcb-dcbx dcb-ets
    dcb-maxrate dcb-pfc dconf-service dd deb-systemd-helper deb-systemd-invoke debconf
    debconf-apt-progress debconf-communicate debconf-copydb debconf-escape debconf-set-selections
    debconf-show debugfs defaults delgroup delpart deluser deno derb devlink devlink-dev
    devlink-dpipe devlink-health devlink-lc devlink-monitor devlink-port devlink-rate devlink-region
    devlink-resource devlink-sb devlink-trap df dgst dhparam diff diff3 dig dir dircolors dirmngr
    dirmngr-client dirname diskutil dmesg dmsetup dmstats dnf dnsdomainname docker doctl domainname
    dotnet dpkg dpkg-architecture dpkg-buildflags dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb
    dpkg-distaddfile dpkg-divert dpkg-fsys-usrunmess dpkg-genbuildinfo dpkg-genchanges
    dpkg-gencontrol dpkg-gensymbols dpkg-maintscript-helper dpkg-mergechangelogs dpkg-name
    dpkg-parsechangelog dpkg-preconfigure dpkg-query dpkg-realpath dpkg-reconfigure
    dpkg-scanpackages dpkg-scansources dpkg-shlibdeps dpkg-source dpkg-split dpkg-statoverride
    dpkg-trigger dpkg-vendor dropdb dropuser dsa dsaparam dsymutil dsymutil-14 du dumpe2fs dumpsexp
    dwp e2freefrag e2fsck e2image e2label e2mmpstatus e2scrub e2undo e4crypt e4defrag ec echo
    ecparam ed edit editor editres egrep eksctl elfedit elixir emacs emerge enc enc2xs encguess
    engine env envsubst epmd eqn erl erlc errstr escript eslint etags ex exa expand expiry expo
    export expr eza factor faillock faillog faked faked-sysv faked-tcp fakeroot fakeroot-sysv
    fakeroot-tcp fallocate false fastboot fastlane fc-cache fc-cat fc-conflist fc-list fc-match
    fc-pattern fc-query fc-scan fc-validate fd fdisk ffmpeg ffprobe fgrep filan file filefrag
    fincore find findfs findmnt firebase firewall-cmd fish flake8 flatpak flock flutter fly flyctl
    fmt fold fossil free fsck fsck.cramfs fsck.minix fsfreeze fstab-decode fstrim funzip fuser fzf
    g++ gapplication gawk gawkbug gcc gcc-ar gcc-ar-12 gcc-nm gcc-nm-12 gcc-ranlib gcc-ranlib-12
    gcloud gcore gdbus gdk-pixbuf-csource gdk-pixbuf-pixdata gdk-pixbuf-query-loaders gem genbrk
    gencat genccode gencfu gencmn gencnval gendict gendsa genl genpkey genrb genrsa gensprep geqn
    getcap getconf getent getopt getpcaps gettext gettextize getty gh ghc ghci gio gio-querymodules
    git git-add git-am git-annotate git-apply git-archive git-bisect git-blame git-branch
    git-bugreport git-bundle git-cat-file git-check-attr git-check-ignore git-check-mailmap
    git-check-ref-format git-checkout git-checkout-index git-cherry git-cherry-pick git-clean
    git-clone git-column git-commit git-commit-graph git-commit-tree git-config git-count-objects
    git-credential git-credential-cache git-credential-cache--daemon git-credential-store git-daemon
    git-describe git-diagnose git-diff git-diff-files git-diff-index git-diff-tree git-difftool
    git-fast-export git-fast-import git-fetch git-fetch-pack git-filter-branch git-fmt-merge-msg
    git-for-each-ref git-for-each-repo git-format-patch git-fsck git-fsck-objects
    git-fsmonitor--daemon git-gc git-get-tar-commit-id git-grep git-hash-object git-help git-hook
    git-http-backend git-http-fetch git-http-push git-imap-send git-index-pack git-init git-init-db
    git-instaweb git-interpret-trailers git-log git-ls-files git-ls-remote git-ls-tree git-mailinfo
    git-mailsplit git-maintenance git-merge git-merge-base git-merge-file git-merge-index
    git-merge-one-file git-merge-tree git-mergetool git-mergetool--lib git-mktag git-mktree
    git-multi-pack-index git-mv git-name-rev git-notes git-pack-objects git-pack-redundant
    git-pack-refs git-patch-id git-prune git-prune-packed git-pull git-push git-quiltimport
    git-range-diff git-read-tree git-rebase git-receive-pack git-reflog git-remote git-remote-ext
    git-remote-fd git-repack git-replace git-request-pull git-rerere git-reset git-restore
    git-rev-list git-rev-parse git-revert git-rm git-send-pack git-sh-i18n git-sh-i18n--envsubst
    git-sh-setup git-shell git-shortlog git-show git-show-branch git-show-index git-show-ref
    git-sparse-checkout git-stage git-stash git-status git-stripspace git-submodule git-subtree
    git-switch git-symbolic-ref git-tag git-unpack-file git-unpack-objects git-update-index
    git-update-ref git-update-server-info git-upload-archive git-upload-pack git-var
    git-verify-commit git-verify-pack git-verify-tag git-version git-web--browse git-whatchanged
    git-worktree git-write-tree gitk gitweb glab glances glib-compile-schemas gmake go gofmt gold
    gp-archive gp-collect-app gp-display-html gp-display-src gp-display-text gpasswd gpg gpg-agent
    gpg-check-pattern gpg-connect-agent gpg-preset-passphrase gpg-wks-client gpg-wks-server gpg-zip
    gpgcompose gpgconf gpgparsemail gpgsm gpgsplit gpgtar gpgv gpic gprof gprofng gradle grep
    gresource groff grog grops grotty groupadd groupdel groupmems groupmod groups grpck grpconv
    grpunconv gsettings gsutil gtbl gtk-query-immodules-2 gtk-update-icon-cache gunzip gzexe gzip
    h2ph h2xs halt hardlink hd hdiutil head heaptrack helm helpztags heroku hexdump hg hmac256 host
    hostid hostname hostnamectl htop http httpie hub hwclock hx i386 iconv iconvconfig icuexportdata
    icupkg id identify iex ifconfig influx info infocmp infotocap init initdb innochecksum innotop
    install install-sgmlcatalog installkernel instmodsh intro invoke-rc ionic ionice ip ip-address
    ip-addrlabel ip-fou ip-gue ip-ioam ip-l2tp ip-link ip-macsec ip-maddress ip-monitor ip-mptcp
    ip-mroute ip-neighbour ip-netconf ip-netns ip-nexthop ip-ntable ip-route ip-rule ip-sr ip-stats
    ip-token ip-tunnel ip-vrf ip-xfrm ipcmk ipcrm ipcs iperf iperf3 iptables iptunnel ipython irb
    ischroot isort isosize jar jarsigner java javac javadoc javap jcmd jconsole jdb jdeprscan jdeps
    jest jfr jhsdb jinfo jlink jmap jmod join journalctl jpackage jps jq jrunscript jshell jstack
    jstat jstatd julia jupyter k3d k9s kbxutil kdf kernel-install keybase keytool kill killall
    killall5 kind kotlin kubectl kustomize last lastb lastlog launchctl lcf ld ld-linux ldattach
    ldconfig ldd lein less lessecho lessfile lesskey lesspipe lexgrog libgcrypt-config libnetcfg
    libpng-config libpng16-config link linux32 linux64 listres lit-14 llc llc-14 lldb-tblgen-14 lli
    lli-14 llvm-addr2line llvm-addr2line-14 llvm-ar llvm-ar-14 llvm-as llvm-as-14 llvm-bcanalyzer
    llvm-bcanalyzer-14 llvm-config llvm-config-14 llvm-cov llvm-cov-14 llvm-cxxfilt llvm-cxxfilt-14
    llvm-cxxmap-14 llvm-diff llvm-diff-14 llvm-dis llvm-dis-14 llvm-dwarfdump llvm-dwarfdump-14
    llvm-exegesis llvm-exegesis-14 llvm-extract llvm-extract-14 llvm-install-name-tool-14 llvm-lib
    llvm-lib-14 llvm-libtool-darwin-14 llvm-link llvm-link-14 llvm-lipo-14 llvm-locstats-14 llvm-mc
    llvm-mc-14 llvm-mca llvm-mca-14 llvm-nm llvm-nm-14 llvm-objcopy llvm-objcopy-14 llvm-objdump
    llvm-objdump-14 llvm-otool-14 llvm-pdbutil llvm-pdbutil-14 llvm-profdata llvm-profdata-14
    llvm-profgen-14 llvm-ranlib llvm-ranlib-14 llvm-readelf llvm-readelf-14 llvm-readobj
    llvm-readobj-14 llvm-rtdyld llvm-rtdyld-14 llvm-size llvm-size-14 llvm-stress llvm-stress-14
    llvm-strings llvm-strings-14 llvm-strip llvm-strip-14 llvm-symbolizer llvm-symbolizer-14
    llvm-tblgen llvm-tblgen-14 llvm-tli-checker-14 ln lnstat locale locale-gen localectl localedef
    logger login loginctl logname logrotate logsave look losetup ls lsattr lsblk lscpu lsd lsfd
    lsipc lsirq lslocks lslogins lsmem lsmod lsns lsof lspci lspgpot lsusb lua luarocks luit lynx
    lz4 lz4c lz4cat lzcat lzcmp lzdiff lzegrep lzfgrep lzgrep lzless lzma lzmainfo lzmore mac magick
    make make-first-existing-target make-ssl-cert makeconv mamba man man-recode manconv mandb
    manpath mariadb mariadb-access mariadb-admin mariadb-analyze mariadb-binlog mariadb-check
    mariadb-conv mariadb-convert-table-format mariadb-dump mariadb-dumpslow mariadb-find-rows
    mariadb-fix-extensions mariadb-hotcopy mariadb-import mariadb-install-db mariadb-optimize
    mariadb-plugin mariadb-repair mariadb-report mariadb-secure-installation mariadb-service-convert
    mariadb-setpermission mariadb-show mariadb-slap mariadb-tzinfo-to-sql mariadb-upgrade
    mariadb-waitpid mariadbcheck mariadbd mariadbd-multi mariadbd-safe mariadbd-safe-helper mawk
    mcookie md5sum memusage memusagestat mesg meson micro migrate-pubring-from-classic-gpg mii-tool
    minikube mix mkdir mke2fs mkfifo mkfs mkfs.bfs mkfs.cramfs mkfs.minix mklost+found mknod mkswap
    mktemp mlir-tblgen-14 mocha modprobe mogrify mongo mongosh mono more mosh mosquitto mount
    mountpoint msgattrib msgcat msgcmp msgcomm msgconv msgen msgexec msgfilter msgfmt msggrep
    msginit msgmerge msgunfmt msguniq msql2mysql mtr mtrace mv mvn mvnw myisamchk myisamlog
    myisampack mypy mysql mysqlaccess mysqladmin mysqlanalyze mysqlbinlog mysqlcheck mysqld
    mysqldump mysqldumpslow mysqlhotcopy mysqlimport mysqloptimize mysqlrepair mysqlreport mysqlshow
    mysqlslap mytop namei nameif nano nawk nc ncat ncdu ncurses5-config ncurses6-config
    ncursesw5-config ncursesw6-config neqn nest netlify netstat networkctl newgrp newusers nft ng
    ngettext nice ninja nisdomainname nix nix-env nl nm nmap node nodejs nohup nologin notify-send
    nox npm nproc npx nroff nsenter nseq nslookup nss-systemd nstat numfmt nvim objcopy objdump ocs
    ocsp od oid2name open openssl openssl-asn1parse openssl-ca openssl-ciphers openssl-cmds
    openssl-cmp openssl-cms openssl-crl openssl-crl2pkcs7 openssl-dgst openssl-dhparam openssl-dsa
    openssl-dsaparam openssl-ec openssl-ecparam openssl-enc openssl-engine openssl-errstr
    openssl-fipsinstall openssl-format-options openssl-gendsa openssl-genpkey openssl-genrsa
    openssl-info openssl-kdf openssl-list openssl-mac openssl-namedisplay-options openssl-nseq
    openssl-ocsp openssl-passphrase-options openssl-passwd openssl-pkcs12 openssl-pkcs7
    openssl-pkcs8 openssl-pkey openssl-pkeyparam openssl-pkeyutl openssl-prime openssl-rand
    openssl-rehash openssl-req openssl-rsa openssl-rsautl openssl-smime openssl-speed openssl-spkac
    openssl-srp openssl-storeutl openssl-ts openssl-verification-options openssl-verify
    openssl-version openssl-x509 opt opt-14 osascript osslsigncode.bash packer pacman pager
    pam-auth-update pandoc parted partx pass passwd paste patch pathchk pbcopy pbpaste pdb3 peekfd
    perf perf-annotate perf-archive perf-arm-spe perf-bench perf-buildid-cache perf-buildid-list
    perf-c2c perf-config perf-daemon perf-data perf-diff perf-dlfilter perf-evlist perf-ftrace
    perf-help perf-inject perf-intel-pt perf-iostat perf-kallsyms perf-kmem perf-kvm perf-kwork
    perf-list perf-lock perf-mem perf-probe perf-record perf-report perf-sched perf-script
    perf-script-perl perf-script-python perf-stat perf-test perf-timechart perf-top perf-trace
    perf-version perl perl5 perlbug perlivp perlthanks perror pg_dump pg_restore pgbench pgrep php
    pic piconv pidof pidwait pinentry pinentry-curses pinky pip pip3 pipx pkaction pkcheck pkcon
    pkcs12 pkcs7 pkcs8 pkey pkeyparam pkeyutl pkg-config pkgconf pkgdata pkill pkmon pkttyagent
    pl2pm pldd plipconfig pm-gawk pmap pnpm pod pod2html pod2man pod2text pod2usage podchecker
    podman poetry polkit polkitd port postgres postmaster poweroff pr preconv prettier prime print
    printenv printf prlimit procan prove prtstat ps pslog psql pstree ptar ptardiff ptargrep ptx
    pulumi pwck pwconv pwd pwdx pwunconv py3clean py3compile py3versions pydoc3 pygettext3
    pygmentize pylint pysetup3 pytest python python-argcomplete-check-easy-install-script python3
    python3-config pzstd r rabbitmq-plugins rabbitmq-server rabbitmqctl rails rake rand ranlib rarp
    rbash rc-local rdma rdma-dev rdma-link rdma-resource rdma-statistic rdma-system react-native
    readelf readlink readprofile readtags realpath rebar3 reboot recode-sr-latin red redis-benchmark
    redis-check-aof redis-check-rdb redis-cli redis-server register-python-argcomplete rehash
    reindexdb remove-shell rename renice replace req reset resize2fs resizepart resolveip rev rg
    rgrep rm rmdir rmiregistry rmt rmt-tar route routel rpcgen rrsync rsa rsautl rscript rsync
    rsync-ssl rtacct rtcwake rtmon rtstat ruby ruff run-mailcap run-parts runcon runlevel runuser
    rustc rustup rview rvim rzsh savelog say sbt scala scalar scons scoop scp screen script
    scriptlive scriptreplay sdiff sed see select-editor sensible-browser sensible-editor
    sensible-pager seq serialver serverless service setarch setcap setpriv setsid setterm sftp sg sh
    sha1sum sha224sum sha256sum sha384sum sha512sum shasum shred shuf shutdown simctl size skill
    slabtop slattach sleep sln slogin smime snap snice snmpc socat soelim sort sotruss speed spkac
    splain split sprof sqldiff sqlite3 srp ss ssh ssh-add ssh-agent ssh-argv0 ssh-copy-id ssh-keygen
    ssh-keyscan ssh-keysign ssh-pkcs11-helper ssh-sk-helper stack start-stop-daemon stat stdbuf
    storeutl strace strace-log-merge streamzip strings strip stty su subl sulogin sum svn swaplabel
    swapoff swapon swift swiftc sync sysctl systemctl systemd systemd-analyze systemd-ask-password
    systemd-ask-password-console systemd-ask-password-wall systemd-backlight systemd-binfmt
    systemd-boot-check-no-failures systemd-cat systemd-cgls systemd-cgtop systemd-creds
    systemd-cryptenroll systemd-cryptsetup systemd-cryptsetup-generator systemd-debug-generator
    systemd-delta systemd-detect-virt systemd-dissect systemd-environment-d-generator systemd-escape
    systemd-firstboot systemd-fsck systemd-fsck-root systemd-fsck-usr systemd-fsckd
    systemd-fstab-generator systemd-getty-generator systemd-gpt-auto-generator systemd-growfs
    systemd-growfs-root systemd-halt systemd-hibernate systemd-hibernate-resume
    systemd-hibernate-resume-generator systemd-hostnamed systemd-hybrid-sleep systemd-id128
    systemd-importd systemd-inhibit systemd-initctl systemd-integritysetup
    systemd-integritysetup-generator systemd-journald systemd-journald-audit
    systemd-journald-dev-log systemd-kexec systemd-localed systemd-logind systemd-machine-id-commit
    systemd-machine-id-setup systemd-makefs systemd-measure systemd-modules-load systemd-mount
    systemd-network-generator systemd-networkd systemd-networkd-wait-online systemd-notify
    systemd-path systemd-pcrphase systemd-pcrphase-initrd systemd-pcrphase-sysinit systemd-poweroff
    systemd-pstore systemd-quotacheck systemd-random-seed systemd-rc-local-generator systemd-reboot
    systemd-remount-fs systemd-repart systemd-rfkill systemd-run systemd-run-generator
    systemd-shutdown systemd-sleep systemd-socket-activate systemd-socket-proxyd
    systemd-stdio-bridge systemd-suspend systemd-suspend-then-hibernate systemd-sysctl
    systemd-sysext systemd-system-update-generator systemd-sysusers systemd-sysv-generator
    systemd-time-wait-sync systemd-timedated systemd-timesyncd systemd-tmpfiles
    systemd-tmpfiles-clean systemd-tmpfiles-setup systemd-tmpfiles-setup-dev
    systemd-tty-ask-password-agent systemd-udev-settle systemd-umount systemd-update-utmp
    systemd-update-utmp-runlevel systemd-user-sessions systemd-veritysetup
    systemd-veritysetup-generator systemd-volatile-root systemd-xdg-autostart-generator tabs tac
    tail tar tarcat taskset tbl tblgen-14 tc tc-actions tc-basic tc-bfifo tc-bpf tc-cake tc-cbq
    tc-cbq-details tc-cbs tc-cgroup tc-choke tc-codel tc-connmark tc-csum tc-ct tc-ctinfo tc-drr
    tc-ematch tc-etf tc-ets tc-flow tc-flower tc-fq tc-fw tc-gate tc-hfsc tc-htb tc-ife tc-matchall
    tc-mirred tc-mpls tc-mqprio tc-nat tc-netem tc-pedit tc-pfifo tc-pie tc-police tc-prio tc-red
    tc-route tc-sample tc-sfb tc-sfq tc-simple tc-skbedit tc-skbmod tc-skbprio tc-stab tc-taprio
    tc-tbf tc-tcindex tc-u32 tc-vlan tc-xt tclsh tclsh8 tcltk-depends tcpdump tee telinit tempfile
    terraform test tic time timedatectl timeout tipc tipc-bearer tipc-link tipc-media tipc-nametable
    tipc-node tipc-peer tipc-socket tldr tload tmux toe tofu top touch tox tput tr traceroute troff
    true truncate ts tsc tset tsget tsort tty tune2fs type tzselect ucf ucfq ucfr uclampset uconv
    ufw ul umount uname uncompress unexpand uniq unlink unlz4 unlzma unrar unshare unxz unzip
    unzipsfx unzstd update-alternatives update-ca-certificates update-catalog
    update-java-alternatives update-locale update-mime update-mime-database update-passwd update-rc
    update-shells update-xmlcatalog uptime useradd userdel usermod users utmpdump uv vacuumdb
    vacuumlo vagrant valgrind valgrind-di-server valgrind-listener validlocale vdir vdpa vdpa-dev
    vdpa-mgmtdev vercel verify version vgdb vi view viewres vigr vim vimdiff vimtutor vipw vite
    vmstat vue w wall watch watchgnupg wc wdctl webpack wget whatis whereis which who whoami whois
    winget wipefs wish wish8 wrangler write www-browser x509 xargs xauth xclip xcodebuild xcrun
    xdg-open xdg-user-dir xdg-user-dirs-update xdpyinfo xdriinfo xev xfd xfontsel xgettext xh xkill
    xlsatoms xlsclients xlsfonts xmessage xml2-config xmlsec1-config xprop xsel xslt-config xsubpp
    xvinfo xwininfo xxd xz xzcat xzcmp xzdiff xzegrep xzfgrep xzgrep xzless xzmore yarn yes
    youtube-dl ypdomainname yq yt-dlp yum zcat zcmp zdiff zdump zegrep zellij zfgrep zforce zgrep
    zic zip zipcloak zipdetails zipgrep zipinfo zipnote zipsplit zless zmore znew zoxide zramctl zsh
    zshall zshbuiltins zshcalsys zshcompctl zshcompsys zshcompwid zshcontrib zshexpn zshmisc
    zshmodules zshoptions zshparam zshroadmap zshtcpsys zshzftpsys zshzle zsoelim zstd zstdcat
    zstdgrep zstdless zstdmt zypper
    ping ping6 locate mlocate plocate updatedb
    """.split()
)

"""The lines that run ``keep`` on a schedule: a crontab line, a systemd user service and timer, a
launchd agent. Printed for the user to install; nothing is installed here."""

from __future__ import annotations

import shlex
from xml.sax.saxutils import escape

KINDS = ("cron", "systemd", "launchd")


def schedule_text(kind: str, command: list[str], minutes: int = 60) -> str:
    """The text that runs ``command`` every ``minutes`` minutes under ``kind``."""
    line = shlex.join(command)
    if kind == "cron":
        every = "0 * * * *" if minutes == 60 else f"*/{minutes} * * * *"
        return f"# crontab -e, then add:\n{every} {line} >/dev/null 2>&1\n"
    if kind == "systemd":
        return (
            "# ~/.config/systemd/user/sessiontree-keep.service\n"
            "[Unit]\nDescription=Keep every coding agent session (sessiontree keep)\n\n"
            f"[Service]\nType=oneshot\nExecStart={line}\n\n"
            "# ~/.config/systemd/user/sessiontree-keep.timer\n"
            f"[Unit]\nDescription=Run sessiontree keep every {minutes} minutes\n\n"
            f"[Timer]\nOnBootSec=5min\nOnUnitActiveSec={minutes}min\nPersistent=true\n\n"
            "[Install]\nWantedBy=timers.target\n\n"
            "# then: systemctl --user daemon-reload && systemctl --user enable --now sessiontree-keep.timer\n"
        )
    arguments = "".join(f"    <string>{escape(part)}</string>\n" for part in command)
    return (
        "<!-- ~/Library/LaunchAgents/dev.sessiontree.keep.plist; then: "
        "launchctl load ~/Library/LaunchAgents/dev.sessiontree.keep.plist -->\n"
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        '<plist version="1.0">\n<dict>\n'
        "  <key>Label</key><string>dev.sessiontree.keep</string>\n"
        f"  <key>ProgramArguments</key>\n  <array>\n{arguments}  </array>\n"
        f"  <key>StartInterval</key><integer>{minutes * 60}</integer>\n"
        "  <key>RunAtLoad</key><true/>\n"
        "</dict>\n</plist>\n"
    )

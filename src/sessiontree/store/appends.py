"""One append per entry type: the typed front of ``SessionManager._append`` (the spec's names)."""

from __future__ import annotations

from typing import Any

from sessiontree.errors import SessiontreeError
from sessiontree.store.entries import Message


class EntryAppends:
    """The ``append_*`` methods of a session manager; each makes one entry of its type."""

    def _append(self, kind: str, fields: dict[str, Any]) -> str:
        """Append one entry of ``kind`` with ``fields`` (None values left out) at the leaf; its id."""
        raise NotImplementedError

    def _require_entry(self, entry_id: str) -> None:
        """Raise ``EntryNotFound`` unless the session has an entry with this id."""
        raise NotImplementedError

    def append_message(self, message: Message) -> str:
        """Append a ``message`` entry (user, assistant, toolResult, ...); return its id."""
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise SessiontreeError("A message needs a string 'role' (user, assistant, toolResult, ...)")
        return self._append("message", {"message": message})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_model_change(self, model: str, role: str | None = None) -> str:
        """Append a ``model_change`` (``model`` as ``provider/model``)."""
        return self._append("model_change", {"model": model, "role": role})

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        *,
        short_summary: str | None = None,
        details: Any = None,
        preserve_data: dict[str, Any] | None = None,
        from_extension: bool | None = None,
    ) -> str:
        fields: dict[str, Any] = {"summary": summary, "shortSummary": short_summary}
        fields.update(firstKeptEntryId=first_kept_entry_id, tokensBefore=tokens_before, details=details)
        return self._append(
            "compaction", {**fields, "preserveData": preserve_data, "fromExtension": from_extension}
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Append extension state (ignored by the model context)."""
        return self._append("custom", {"customType": custom_type, "data": data})

    def append_custom_message_entry(
        self, custom_type: str, content: str | list[dict[str, Any]], display: bool, details: Any = None
    ) -> str:
        fields = {"customType": custom_type, "content": content, "display": display, "details": details}
        return self._append("custom_message", fields)

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Label an entry (``None`` or ``""`` clears its label)."""
        self._require_entry(target_id)
        return self._append("label", {"targetId": target_id, "label": label})

    def append_ttsr_injection(self, injected_rules: list[str]) -> str:
        return self._append("ttsr_injection", {"injectedRules": list(injected_rules)})

    def append_session_init(
        self,
        system_prompt: str,
        *,
        task: str | None = None,
        tools: list[Any] | None = None,
        output_schema: Any = None,
    ) -> str:
        fields = {"systemPrompt": system_prompt, "task": task, "tools": tools, "outputSchema": output_schema}
        return self._append("session_init", fields)

    def append_mode_change(self, mode: str, data: dict[str, Any] | None = None) -> str:
        return self._append("mode_change", {"mode": mode, "data": data})

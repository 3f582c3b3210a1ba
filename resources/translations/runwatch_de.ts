<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en">
<context>
    <name>A2aConnector</name>
    <message>
        <source>the agent answered with a message; there is no task to query</source>
        <translation>der Agent hat mit einer Nachricht geantwortet; es gibt keine Aufgabe zum Abfragen</translation>
    </message>
    <message>
        <source>The agent answered GetTask with something that is not a Task.</source>
        <translation>Der Agent hat auf GetTask mit etwas geantwortet, das keine Aufgabe ist.</translation>
    </message>
    <message>
        <source>TaskNotCancelable: the task is already %1</source>
        <translation>TaskNotCancelable: die Aufgabe ist bereits %1</translation>
    </message>
    <message>
        <source>TaskNotCancelable: the agent refused to cancel this task (%1)</source>
        <translation>TaskNotCancelable: der Agent hat den Abbruch dieser Aufgabe verweigert (%1)</translation>
    </message>
    <message>
        <source>The agent did not confirm the cancel within %1 s; the task is still %2.</source>
        <translation>Der Agent hat den Abbruch nicht innerhalb von %1 s bestätigt; die Aufgabe ist weiterhin %2.</translation>
    </message>
    <message>
        <source>running</source>
        <translation>in Arbeit</translation>
    </message>
    <message>
        <source>in an unknown state</source>
        <translation>in einem unbekannten Zustand</translation>
    </message>
    <message>
        <source>A2A has no delete: remove the run locally; the task stays on the agent.</source>
        <translation>A2A kennt kein Löschen: entfernen Sie den Lauf lokal; die Aufgabe bleibt beim Agenten.</translation>
    </message>
    <message>
        <source>The answer is empty.</source>
        <translation>Die Antwort ist leer.</translation>
    </message>
    <message>
        <source>The task no longer accepts input (it has ended): </source>
        <translation>Die Aufgabe nimmt keine Eingabe mehr an (sie ist beendet): </translation>
    </message>
    <message>
        <source>answer sent</source>
        <translation>Antwort gesendet</translation>
    </message>
    <message>
        <source>A follow-up needs a prompt.</source>
        <translation>Eine Nachfrage braucht einen Prompt.</translation>
    </message>
    <message>
        <source>The agent does not take messages while this task is working: </source>
        <translation>Der Agent nimmt keine Nachrichten an, solange diese Aufgabe arbeitet: </translation>
    </message>
    <message>
        <source>This agent speaks A2A 0.3, which has no ListTasks: tasks started elsewhere cannot be discovered.</source>
        <translation>Dieser Agent spricht A2A 0.3, das kein ListTasks kennt: anderswo gestartete Aufgaben lassen sich nicht finden.</translation>
    </message>
    <message>
        <source>The agent does not offer ListTasks: </source>
        <translation>Der Agent bietet kein ListTasks an: </translation>
    </message>
    <message>
        <source>streaming</source>
        <translation>Streaming</translation>
    </message>
    <message>
        <source>no streaming (tasks are polled)</source>
        <translation>kein Streaming (Aufgaben werden abgefragt)</translation>
    </message>
    <message>
        <source>push notifications</source>
        <translation>Push-Benachrichtigungen</translation>
    </message>
    <message>
        <source>extended agent card</source>
        <translation>erweiterte Agentenkarte</translation>
    </message>
    <message>
        <source>ListTasks (attach to tasks started elsewhere)</source>
        <translation>ListTasks (anderswo gestartete Aufgaben übernehmen)</translation>
    </message>
    <message>
        <source>The agent does not stream: progress arrives by GetTask polls, not live.</source>
        <translation>Der Agent streamt nicht: Fortschritt kommt über GetTask-Abfragen, nicht live.</translation>
    </message>
    <message>
        <source>The agent speaks A2A 0.3: it has no ListTasks, so tasks started elsewhere cannot be listed or attached by id discovery.</source>
        <translation>Der Agent spricht A2A 0.3: er kennt kein ListTasks, daher lassen sich anderswo gestartete Aufgaben weder auflisten noch über die ID-Suche übernehmen.</translation>
    </message>
    <message>
        <source>The card asks for credentials (%1) but the connection has no key.</source>
        <translation>Die Karte verlangt Anmeldedaten (%1), aber die Verbindung hat keinen Schlüssel.</translation>
    </message>
    <message>
        <source>Interface not usable by Runwatch: </source>
        <translation>Schnittstelle für Runwatch nicht nutzbar: </translation>
    </message>
    <message>
        <source>API key scheme &quot;%1&quot; names no header</source>
        <translation>API-Schlüssel-Schema „%1“ nennt keinen Header</translation>
    </message>
    <message>
        <source>HTTP auth scheme &quot;%1&quot; is not supported</source>
        <translation>HTTP-Authentifizierungsschema „%1“ wird nicht unterstützt</translation>
    </message>
    <message>
        <source>Protocol: A2A %1 over %2 at %3</source>
        <translation>Protokoll: A2A %1 über %2 unter %3</translation>
    </message>
    <message>
        <source>no streaming (polling)</source>
        <translation>kein Streaming (Abfragen)</translation>
    </message>
    <message>
        <source>extended card</source>
        <translation>erweiterte Karte</translation>
    </message>
    <message>
        <source>Auth: bearer token (%1)</source>
        <translation>Anmeldung: Bearer-Token (%1)</translation>
    </message>
    <message>
        <source>Auth: HTTP basic (%1)</source>
        <translation>Anmeldung: HTTP Basic (%1)</translation>
    </message>
    <message>
        <source>Auth: API key in header %1</source>
        <translation>Anmeldung: API-Schlüssel im Header %1</translation>
    </message>
    <message>
        <source>Auth: API key in query parameter %1</source>
        <translation>Anmeldung: API-Schlüssel im Query-Parameter %1</translation>
    </message>
    <message>
        <source>Auth: API key in cookie %1</source>
        <translation>Anmeldung: API-Schlüssel im Cookie %1</translation>
    </message>
    <message>
        <source>The agent card at %1 is not valid JSON (%2 at offset %3).</source>
        <translation>Die Agentenkarte unter %1 ist kein gültiges JSON (%2 an Position %3).</translation>
    </message>
    <message>
        <source>The agent card at %1 is not a JSON object.</source>
        <translation>Die Agentenkarte unter %1 ist kein JSON-Objekt.</translation>
    </message>
    <message>
        <source>The agent card at %1 has no &quot;name&quot;: it is not an A2A agent card.</source>
        <translation>Die Agentenkarte unter %1 hat kein „name“: sie ist keine A2A-Agentenkarte.</translation>
    </message>
    <message>
        <source>The agent card at %1 declares no interface (no supportedInterfaces, no url).</source>
        <translation>Die Agentenkarte unter %1 nennt keine Schnittstelle (kein supportedInterfaces, keine url).</translation>
    </message>
    <message>
        <source>The agent card at %1 offers no interface Runwatch can use (JSON-RPC or HTTP+JSON, A2A 0.3 or 1.0); it declares: %2.</source>
        <translation>Die Agentenkarte unter %1 bietet keine Schnittstelle, die Runwatch nutzen kann (JSON-RPC oder HTTP+JSON, A2A 0.3 oder 1.0); sie nennt: %2.</translation>
    </message>
    <message>
        <source>The agent needs authorization to continue.</source>
        <translation>Der Agent braucht eine Autorisierung, um fortzufahren.</translation>
    </message>
    <message>
        <source>The agent is waiting for input.</source>
        <translation>Der Agent wartet auf eine Eingabe.</translation>
    </message>
    <message>
        <source>The agent reported that the task failed.</source>
        <translation>Der Agent meldet, dass die Aufgabe fehlgeschlagen ist.</translation>
    </message>
    <message>
        <source>The agent rejected the task.</source>
        <translation>Der Agent hat die Aufgabe abgelehnt.</translation>
    </message>
    <message>
        <source>not JSON (%1 at offset %2)</source>
        <translation>kein JSON (%1 an Position %2)</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>kein JSON-Objekt</translation>
    </message>
    <message>
        <source>The agent reported an error.</source>
        <translation>Der Agent hat einen Fehler gemeldet.</translation>
    </message>
    <message>
        <source>The agent&apos;s JSON-RPC reply is </source>
        <translation>Die JSON-RPC-Antwort des Agenten ist </translation>
    </message>
    <message>
        <source>The agent&apos;s JSON-RPC reply has neither result nor error.</source>
        <translation>Die JSON-RPC-Antwort des Agenten hat weder result noch error.</translation>
    </message>
    <message>
        <source>The agent&apos;s reply is </source>
        <translation>Die Antwort des Agenten ist </translation>
    </message>
    <message>
        <source>No event arrived for %1 s; resubscribing.</source>
        <translation>Seit %1 s kam kein Ereignis; neu abonnieren.</translation>
    </message>
    <message>
        <source>The agent does not stream; polling.</source>
        <translation>Der Agent streamt nicht; es wird abgefragt.</translation>
    </message>
    <message>
        <source>The agent answered SendMessage with neither a Task nor a Message.</source>
        <translation>Der Agent hat auf SendMessage weder mit einer Aufgabe noch mit einer Nachricht geantwortet.</translation>
    </message>
    <message>
        <source>The agent sent an error event the connector does not understand.</source>
        <translation>Der Agent hat ein Fehlerereignis gesendet, das der Konnektor nicht versteht.</translation>
    </message>
    <message>
        <source>The agent&apos;s reply is larger than 4 MiB.</source>
        <translation>Die Antwort des Agenten ist größer als 4 MiB.</translation>
    </message>
    <message>
        <source>The agent URL &quot;%1&quot; is not valid.</source>
        <translation>Die Agenten-URL „%1“ ist ungültig.</translation>
    </message>
    <message>
        <source>Cannot fetch the agent card at %1: %2</source>
        <translation>Die Agentenkarte unter %1 kann nicht abgerufen werden: %2</translation>
    </message>
    <message>
        <source>The agent card at %1 offers no interface for %2.</source>
        <translation>Die Agentenkarte unter %1 bietet keine Schnittstelle für %2.</translation>
    </message>
    <message>
        <source>No A2A agent card found (HTTP 404 at %1). Is %2 the agent&apos;s base URL?</source>
        <translation>Keine A2A-Agentenkarte gefunden (HTTP 404 unter %1). Ist %2 die Basis-URL des Agenten?</translation>
    </message>
    <message>
        <source>A2A %1 has no such method.</source>
        <translation>A2A %1 hat keine solche Methode.</translation>
    </message>
    <message>
        <source>No agent card under %1; the card at %2 describes the agent at %3, not this one.</source>
        <translation>Keine Agentenkarte unter %1; die Karte unter %2 beschreibt den Agenten unter %3, nicht diesen.</translation>
    </message>
    <message>
        <source>The agent card at %1 sends requests to %2, another origin than the connection&apos;s %3: Runwatch does not send the connection&apos;s key there. If you trust %2, point a connection at it.</source>
        <translation>Die Agentenkarte unter %1 schickt Anfragen an %2, einen anderen Ursprung als %3 der Verbindung: Runwatch sendet den Schlüssel der Verbindung nicht dorthin. Wenn Sie %2 vertrauen, richten Sie eine Verbindung darauf.</translation>
    </message>
</context>
<context>
    <name>AgentSessions</name>
    <message>
        <source>Malformed &quot;%1&quot; event: %2</source>
        <translation>Fehlerhaftes Ereignis „%1“: %2</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>kein JSON-Objekt</translation>
    </message>
    <message>
        <source>The agent waits for your decision on: %1</source>
        <translation>Der Agent wartet auf Ihre Entscheidung zu: %1</translation>
    </message>
    <message>
        <source>The agent waits for the result of: %1</source>
        <translation>Der Agent wartet auf das Ergebnis von: %1</translation>
    </message>
    <message>
        <source>malformed event</source>
        <translation>fehlerhaftes Ereignis</translation>
    </message>
    <message>
        <source>error, retrying</source>
        <translation>Fehler, neuer Versuch</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>The turn ended: %1.</source>
        <translation>Die Runde endete: %1.</translation>
    </message>
    <message>
        <source>The service&apos;s reply is not a JSON object.</source>
        <translation>Die Antwort des Dienstes ist kein JSON-Objekt.</translation>
    </message>
    <message>
        <source>not found on the service (already deleted)</source>
        <translation>auf dem Dienst nicht gefunden (bereits gelöscht)</translation>
    </message>
    <message>
        <source>The session does not wait for an answer.</source>
        <translation>Die Sitzung wartet auf keine Antwort.</translation>
    </message>
</context>
<context>
    <name>BatchRespond</name>
    <message>
        <source>no details of its request</source>
        <translation>keine Angaben zu seiner Anfrage</translation>
    </message>
    <message>
        <source>a question</source>
        <translation>eine Frage</translation>
    </message>
    <message>
        <source>an approval</source>
        <translation>eine Freigabe</translation>
    </message>
    <message>
        <source>a choice</source>
        <translation>eine Auswahl</translation>
    </message>
    <message>
        <source>tool outputs</source>
        <translation>Tool-Ausgaben</translation>
    </message>
    <message>
        <source>a sign-in</source>
        <translation>eine Anmeldung</translation>
    </message>
    <message>
        <source>a timer</source>
        <translation>einen Timer</translation>
    </message>
    <message>
        <source>a callback</source>
        <translation>einen Rückruf</translation>
    </message>
    <message>
        <source>A batch needs at least two runs.</source>
        <translation>Für eine gemeinsame Antwort braucht es mindestens zwei Läufe.</translation>
    </message>
    <message>
        <source>%1 waits for %2, which is answered run by run.</source>
        <translation>%1 wartet auf %2; das wird Lauf für Lauf beantwortet.</translation>
    </message>
    <message>
        <source>The runs wait for different requests; select runs that wait for the same one.</source>
        <translation>Die Läufe warten auf verschiedene Anfragen; wählen Sie Läufe, die auf dieselbe warten.</translation>
    </message>
    <message>
        <source>The run is not waiting for input.</source>
        <translation>Der Lauf wartet nicht auf eine Eingabe.</translation>
    </message>
    <message>
        <source>The run waits for %1, not an approval.</source>
        <translation>Der Lauf wartet auf %1, nicht auf eine Freigabe.</translation>
    </message>
    <message>
        <source>The run&apos;s review does not allow approving.</source>
        <translation>Die Prüfung des Laufs erlaubt kein Freigeben.</translation>
    </message>
    <message>
        <source>The run&apos;s review does not allow rejecting.</source>
        <translation>Die Prüfung des Laufs erlaubt kein Ablehnen.</translation>
    </message>
    <message>
        <source>The run waits for %1, not an answer in words.</source>
        <translation>Der Lauf wartet auf %1, nicht auf eine Antwort in Worten.</translation>
    </message>
    <message>
        <source>The answer is empty.</source>
        <translation>Die Antwort ist leer.</translation>
    </message>
    <message>
        <source>The run waits for %1, not a choice.</source>
        <translation>Der Lauf wartet auf %1, nicht auf eine Auswahl.</translation>
    </message>
    <message>
        <source>“%1” is not one of the run&apos;s options.</source>
        <translation>„%1“ ist keine der Optionen des Laufs.</translation>
    </message>
    <message>
        <source>A typed answer goes to one run at a time.</source>
        <translation>Eine typisierte Antwort geht jeweils an einen Lauf.</translation>
    </message>
    <message>
        <source>No such run.</source>
        <translation>Diesen Lauf gibt es nicht.</translation>
    </message>
    <message>
        <source>The run is no longer waiting for an answer.</source>
        <translation>Der Lauf wartet nicht mehr auf eine Antwort.</translation>
    </message>
    <message>
        <source>This connection does not accept answers.</source>
        <translation>Diese Verbindung nimmt keine Antworten an.</translation>
    </message>
</context>
<context>
    <name>ClaudeAgentsConnector</name>
    <message>
        <source>The service&apos;s answer is not a page.</source>
        <translation>Die Antwort des Dienstes ist keine Seite.</translation>
    </message>
    <message>
        <source>The session was terminated.</source>
        <translation>Die Sitzung wurde beendet.</translation>
    </message>
    <message>
        <source>interrupt sent; waiting for the session to stop</source>
        <translation>Unterbrechung gesendet; warte, bis die Sitzung anhält</translation>
    </message>
    <message>
        <source>The account has no environment for a session to run in: create one, or name one with --environment.</source>
        <translation>Das Konto hat keine Umgebung, in der eine Sitzung laufen kann: Legen Sie eine an oder nennen Sie eine mit --environment.</translation>
    </message>
    <message>
        <source>The session reached its budget.</source>
        <translation>Die Sitzung hat ihr Budget erreicht.</translation>
    </message>
    <message>
        <source>The model refused to go on.</source>
        <translation>Das Modell hat sich geweigert weiterzumachen.</translation>
    </message>
    <message>
        <source>The service gave up after repeated errors.</source>
        <translation>Der Dienst hat nach wiederholten Fehlern aufgegeben.</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>erlaubt</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>tool result</source>
        <translation>Tool-Ergebnis</translation>
    </message>
    <message>
        <source>The agent is thinking.</source>
        <translation>Der Agent denkt nach.</translation>
    </message>
    <message>
        <source>result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>The session reported an error without saying why.</source>
        <translation>Die Sitzung meldete einen Fehler, ohne den Grund zu nennen.</translation>
    </message>
    <message>
        <source>Nothing arrived on the session&apos;s stream for %1 s; following it again.</source>
        <translation>Seit %1 s kam nichts im Stream der Sitzung an; er wird erneut verfolgt.</translation>
    </message>
    <message>
        <source>The session&apos;s stream went silent and timed out.</source>
        <translation>Der Stream der Sitzung verstummte und lief in eine Zeitüberschreitung.</translation>
    </message>
    <message>
        <source>The session&apos;s stream was interrupted: %1</source>
        <translation>Der Stream der Sitzung wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>Name the agent to run (--agent; agents lists them).</source>
        <translation>Nennen Sie den Agenten, der laufen soll (--agent; agents listet sie auf).</translation>
    </message>
    <message>
        <source>The service created no session.</source>
        <translation>Der Dienst hat keine Sitzung angelegt.</translation>
    </message>
    <message>
        <source>The session&apos;s stream is not an event stream.</source>
        <translation>Der Stream der Sitzung ist kein Ereignis-Stream.</translation>
    </message>
    <message>
        <source>The service did not echo the message.</source>
        <translation>Der Dienst hat die Nachricht nicht bestätigt.</translation>
    </message>
    <message>
        <source>The session&apos;s event log does not have the run&apos;s message %1.</source>
        <translation>Das Ereignisprotokoll der Sitzung enthält die Nachricht %1 des Laufs nicht.</translation>
    </message>
    <message>
        <source>The session&apos;s stream reported an error.</source>
        <translation>Der Stream der Sitzung meldete einen Fehler.</translation>
    </message>
</context>
<context>
    <name>CommandPalette</name>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
</context>
<context>
    <name>ConnectionOptions</name>
    <message>
        <source>Plain http:// to %1 sends the key and the runs unencrypted: use https://, or allow plain http for this connection.</source>
        <translation>Einfaches http:// zu %1 überträgt den Schlüssel und die Läufe unverschlüsselt: Verwenden Sie https:// oder erlauben Sie einfaches http für diese Verbindung.</translation>
    </message>
    <message>
        <source>Not used by the %1 backend.</source>
        <translation>Wird vom Backend %1 nicht verwendet.</translation>
    </message>
    <message>
        <source>Must be a single line.</source>
        <translation>Muss eine einzelne Zeile sein.</translation>
    </message>
    <message>
        <source>An API version looks like 2025-04-01-preview (letters, digits, &apos;.&apos;, &apos;-&apos;).</source>
        <translation>Eine API-Version sieht aus wie 2025-04-01-preview (Buchstaben, Ziffern, „.“, „-“).</translation>
    </message>
    <message>
        <source>Unbalanced quotes in the command.</source>
        <translation>Nicht geschlossene Anführungszeichen im Befehl.</translation>
    </message>
    <message>
        <source>Give the profile file&apos;s full path.</source>
        <translation>Geben Sie den vollständigen Pfad der Profildatei an.</translation>
    </message>
    <message>
        <source>Cannot read %1.</source>
        <translation>%1 kann nicht gelesen werden.</translation>
    </message>
    <message>
        <source>No PEM certificate in %1.</source>
        <translation>Kein PEM-Zertifikat in %1.</translation>
    </message>
    <message>
        <source>A proxy is given as http://host:port or socks5://host:port.</source>
        <translation>Ein Proxy wird als http://host:port oder socks5://host:port angegeben.</translation>
    </message>
    <message>
        <source>A time budget is given as 90s, 45m, 2h, 1h30m or 1d (a year at most).</source>
        <translation>Ein Zeitbudget wird als 90s, 45m, 2h, 1h30m oder 1d angegeben (höchstens ein Jahr).</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a header name: letters, digits and !#$%&amp;&apos;*+-.^_`|~ only, e.g. x-api-key.</source>
        <translation>„%1“ ist kein Header-Name: nur Buchstaben, Ziffern und !#$%&amp;&apos;*+-.^_`|~, z. B. x-api-key.</translation>
    </message>
    <message>
        <source>Either yes or no.</source>
        <translation>Entweder yes oder no.</translation>
    </message>
    <message>
        <source>The URL holds a password (user:password@host): it would be stored and shown with every run. Remove it from the URL and give the secret as the connection&apos;s key.</source>
        <translation>Die URL enthält ein Passwort (user:password@host): Es würde mit jedem Lauf gespeichert und angezeigt. Entfernen Sie es aus der URL und geben Sie das Geheimnis als Schlüssel der Verbindung an.</translation>
    </message>
    <message>
        <source>Give auto, 2025-11-25 or 2026-07-28.</source>
        <translation>Geben Sie auto, 2025-11-25 oder 2026-07-28 an.</translation>
    </message>
</context>
<context>
    <name>FoundryConnector</name>
    <message>
        <source>The run&apos;s thread id is unknown: it cannot be reached again.</source>
        <translation>Die Thread-ID des Laufs ist unbekannt: er ist nicht mehr erreichbar.</translation>
    </message>
    <message>
        <source>The connection was closed.</source>
        <translation>Die Verbindung wurde geschlossen.</translation>
    </message>
    <message>
        <source>Choose the agent to run (its assistant id, e.g. asst_…).</source>
        <translation>Wählen Sie den Agenten für den Lauf (seine Assistant-ID, z. B. asst_…).</translation>
    </message>
    <message>
        <source>The run&apos;s thread is not known: there is nothing to follow up.</source>
        <translation>Der Thread des Laufs ist unbekannt: es gibt nichts, dem eine Nachfrage folgen könnte.</translation>
    </message>
    <message>
        <source>The service&apos;s answer is not a list.</source>
        <translation>Die Antwort des Dienstes ist keine Liste.</translation>
    </message>
    <message>
        <source>The list says has_more but gives no next cursor.</source>
        <translation>Die Liste meldet has_more, nennt aber keinen nächsten Cursor.</translation>
    </message>
    <message>
        <source>The service&apos;s answer is not a run object.</source>
        <translation>Die Antwort des Dienstes ist kein Lauf-Objekt.</translation>
    </message>
    <message>
        <source>already finished</source>
        <translation>bereits beendet</translation>
    </message>
    <message>
        <source>The Foundry Agent Service cannot delete runs: delete locally.</source>
        <translation>Der Foundry Agent Service kann keine Läufe löschen: löschen Sie lokal.</translation>
    </message>
    <message>
        <source>The run does not wait for input (it is %1).</source>
        <translation>Der Lauf wartet nicht auf eine Eingabe (er ist %1).</translation>
    </message>
    <message>
        <source>The Foundry Agent Service lists runs only per thread.</source>
        <translation>Der Foundry Agent Service listet Läufe nur je Thread auf.</translation>
    </message>
    <message>
        <source>Approve or reject the agent&apos;s tool call(s): %1</source>
        <translation>Tool-Aufruf(e) des Agenten freigeben oder ablehnen: %1</translation>
    </message>
    <message>
        <source>The agent waits for the output of: %1</source>
        <translation>Der Agent wartet auf die Ausgabe von: %1</translation>
    </message>
    <message>
        <source>The run failed without saying why.</source>
        <translation>Der Lauf ist ohne Angabe von Gründen fehlgeschlagen.</translation>
    </message>
    <message>
        <source>The run is incomplete (%1).</source>
        <translation>Der Lauf ist unvollständig (%1).</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>kein Grund angegeben</translation>
    </message>
    <message>
        <source>The run expired: nobody answered its request before the deadline (runs expire ten minutes after creation). Start a new run.</source>
        <translation>Der Lauf ist abgelaufen: niemand hat seine Anfrage vor der Frist beantwortet (Läufe laufen zehn Minuten nach dem Erstellen ab). Starten Sie einen neuen Lauf.</translation>
    </message>
    <message>
        <source>The run requires an action Runwatch does not know: %1</source>
        <translation>Der Lauf verlangt eine Aktion, die Runwatch nicht kennt: %1</translation>
    </message>
    <message>
        <source>code interpreter</source>
        <translation>Code-Interpreter</translation>
    </message>
    <message>
        <source>The service answered the create request with something that is not a run object.</source>
        <translation>Der Dienst hat auf die Erstell-Anfrage mit etwas geantwortet, das kein Lauf-Objekt ist.</translation>
    </message>
    <message>
        <source>Expected an event stream but the service sent %1.</source>
        <translation>Ein Ereignisstrom war erwartet, aber der Dienst hat %1 gesendet.</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>keinen Content-Type</translation>
    </message>
    <message>
        <source>The service sent a &quot;%1&quot; event whose data is not a JSON object.</source>
        <translation>Der Dienst hat ein „%1“-Ereignis gesendet, dessen Daten kein JSON-Objekt sind.</translation>
    </message>
    <message>
        <source>A &quot;%1&quot; event carries no run id or status.</source>
        <translation>Ein „%1“-Ereignis enthält keine Lauf-ID und keinen Status.</translation>
    </message>
    <message>
        <source>The service&apos;s list is longer than Runwatch reads (at most %1 items, %2 MiB, %3 pages): only its first %4 items were read.</source>
        <translation>Die Liste des Dienstes ist länger, als Runwatch liest (höchstens %1 Einträge, %2 MiB, %3 Seiten): nur ihre ersten %4 Einträge wurden gelesen.</translation>
    </message>
</context>
<context>
    <name>GeminiConnector</name>
    <message>
        <source>not a JSON object</source>
        <translation>kein JSON-Objekt</translation>
    </message>
    <message>
        <source>The interaction ended with status &quot;%1&quot;, which Runwatch does not know.</source>
        <translation>Die Interaktion endete mit dem Status &quot;%1&quot;, den Runwatch nicht kennt.</translation>
    </message>
    <message>
        <source>a step event without a valid index</source>
        <translation>ein Schritt-Ereignis ohne gültigen Index</translation>
    </message>
    <message>
        <source>The service ended the stream; the interaction goes on.</source>
        <translation>Der Dienst hat den Stream beendet; die Interaktion läuft weiter.</translation>
    </message>
    <message>
        <source>The interaction failed without saying why.</source>
        <translation>Die Interaktion ist ohne Angabe von Gründen fehlgeschlagen.</translation>
    </message>
    <message>
        <source>a step.delta without a delta object</source>
        <translation>ein step.delta ohne delta-Objekt</translation>
    </message>
    <message>
        <source>Malformed &quot;%1&quot; event before any event id: %2</source>
        <translation>Fehlerhaftes &quot;%1&quot;-Ereignis vor jeder Ereignis-ID: %2</translation>
    </message>
    <message>
        <source>Malformed &quot;%1&quot; event after event %2: %3</source>
        <translation>Fehlerhaftes &quot;%1&quot;-Ereignis nach Ereignis %2: %3</translation>
    </message>
    <message>
        <source>malformed event</source>
        <translation>fehlerhaftes Ereignis</translation>
    </message>
    <message>
        <source>output error</source>
        <translation>Ausgabefehler</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>The model waits for the output of: %1</source>
        <translation>Das Modell wartet auf die Ausgabe von: %1</translation>
    </message>
    <message>
        <source>The service&apos;s answer is not an interaction.</source>
        <translation>Die Antwort des Dienstes ist keine Interaktion.</translation>
    </message>
    <message>
        <source>already %1</source>
        <translation>bereits %1</translation>
    </message>
    <message>
        <source>not found on the service (already deleted or expired)</source>
        <translation>beim Dienst nicht gefunden (bereits gelöscht oder abgelaufen)</translation>
    </message>
    <message>
        <source>The interaction does not wait for function results (it is %1).</source>
        <translation>Die Interaktion wartet nicht auf Funktionsergebnisse (sie ist %1).</translation>
    </message>
    <message>
        <source>without a status</source>
        <translation>ohne Status</translation>
    </message>
    <message>
        <source>The Interactions API has no listing of interactions.</source>
        <translation>Die Interactions-API listet keine Interaktionen auf.</translation>
    </message>
    <message>
        <source>The service&apos;s list of %1 is not a list.</source>
        <translation>Die Liste %1 des Dienstes ist keine Liste.</translation>
    </message>
    <message>
        <source>model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>agent, runs in the background</source>
        <translation>Agent, läuft im Hintergrund</translation>
    </message>
    <message>
        <source>Nothing arrived on the interaction&apos;s stream for %1 s; resuming it.</source>
        <translation>Seit %1 s kam nichts im Stream der Interaktion; er wird fortgesetzt.</translation>
    </message>
    <message>
        <source>The interaction&apos;s stream went silent and timed out.</source>
        <translation>Der Stream der Interaktion ist verstummt und hat das Zeitlimit überschritten.</translation>
    </message>
    <message>
        <source>The interaction&apos;s stream was interrupted: %1</source>
        <translation>Der Stream der Interaktion wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>Expected the interaction&apos;s event stream but the service sent %1.</source>
        <translation>Der Ereignisstrom der Interaktion war erwartet, aber der Dienst hat %1 gesendet.</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>keinen Content-Type</translation>
    </message>
</context>
<context>
    <name>JobsConnector</name>
    <message>
        <source>profile: give options.profile or options.profile_file, not both</source>
        <translation>Profil: geben Sie options.profile oder options.profile_file an, nicht beides</translation>
    </message>
    <message>
        <source>profile: options.profile must be a JSON object</source>
        <translation>Profil: options.profile muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>The status reply has no job status at %1.</source>
        <translation>Die Statusantwort hat keinen Job-Status unter %1.</translation>
    </message>
    <message>
        <source>cancellation requested; waiting for the job to stop</source>
        <translation>Abbruch angefordert; warte, bis der Job anhält</translation>
    </message>
    <message>
        <source>already </source>
        <translation>bereits </translation>
    </message>
    <message>
        <source>already finished</source>
        <translation>bereits beendet</translation>
    </message>
    <message>
        <source>Job services have no server-side delete (DELETE cancels); remove the run locally.</source>
        <translation>Job-Dienste kennen kein serverseitiges Löschen (DELETE bricht ab); entfernen Sie den Lauf lokal.</translation>
    </message>
    <message>
        <source>The job is not waiting for input: </source>
        <translation>Der Job wartet nicht auf eine Eingabe: </translation>
    </message>
    <message>
        <source>running</source>
        <translation>in Arbeit</translation>
    </message>
    <message>
        <source>The listing has no array of jobs at %1.</source>
        <translation>Die Auflistung hat kein Job-Array unter %1.</translation>
    </message>
    <message>
        <source>The result is not valid JSON.</source>
        <translation>Das Ergebnis ist kein gültiges JSON.</translation>
    </message>
    <message>
        <source>The job succeeded but its result could not be fetched: </source>
        <translation>Der Job war erfolgreich, aber sein Ergebnis konnte nicht abgerufen werden: </translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>kein JSON-Objekt</translation>
    </message>
    <message>
        <source>The job waits for input but did not say what it needs.</source>
        <translation>Der Job wartet auf eine Eingabe, hat aber nicht gesagt, was er braucht.</translation>
    </message>
    <message>
        <source>Waiting for the external system to call back.</source>
        <translation>Warte auf den Rückruf des externen Systems.</translation>
    </message>
    <message>
        <source>The job resumes by itself.</source>
        <translation>Der Job setzt von selbst fort.</translation>
    </message>
    <message>
        <source>its timeout of %1 s</source>
        <translation>sein Zeitlimit von %1 s</translation>
    </message>
    <message>
        <source>its timeout</source>
        <translation>sein Zeitlimit</translation>
    </message>
    <message>
        <source>The job ran longer than %1.</source>
        <translation>Der Job lief länger als %1.</translation>
    </message>
    <message>
        <source>The job failed without saying why.</source>
        <translation>Der Job ist ohne Angabe von Gründen fehlgeschlagen.</translation>
    </message>
    <message>
        <source>The job reported an error without a message.</source>
        <translation>Der Job hat einen Fehler ohne Meldung gemeldet.</translation>
    </message>
    <message>
        <source> (retryable)</source>
        <translation> (wiederholbar)</translation>
    </message>
    <message>
        <source> (not retryable)</source>
        <translation> (nicht wiederholbar)</translation>
    </message>
    <message>
        <source>Malformed job event &quot;%1&quot;%2: %3</source>
        <translation>Fehlerhaftes Job-Ereignis „%1“%2: %3</translation>
    </message>
    <message>
        <source>unknown key</source>
        <translation>unbekannter Schlüssel</translation>
    </message>
    <message>
        <source>must be a string</source>
        <translation>muss eine Zeichenkette sein</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>muss ein Objekt sein</translation>
    </message>
    <message>
        <source>URI template &quot;%1&quot;: %2</source>
        <translation>URI-Vorlage „%1“: %2</translation>
    </message>
    <message>
        <source>is empty</source>
        <translation>ist leer</translation>
    </message>
    <message>
        <source>is longer than %1 characters</source>
        <translation>ist länger als %1 Zeichen</translation>
    </message>
    <message>
        <source>must start with &apos;/&apos; or be an absolute http(s) URL</source>
        <translation>muss mit „/“ beginnen oder eine absolute http(s)-URL sein</translation>
    </message>
    <message>
        <source>has a &apos;}&apos; without &apos;{&apos;</source>
        <translation>hat ein „}“ ohne „{“</translation>
    </message>
    <message>
        <source>contains a space or control character</source>
        <translation>enthält ein Leer- oder Steuerzeichen</translation>
    </message>
    <message>
        <source>has a &apos;{&apos; without &apos;}&apos;</source>
        <translation>hat ein „{“ ohne „}“</translation>
    </message>
    <message>
        <source>only the variable {id} is known, not {%1}</source>
        <translation>nur die Variable {id} ist bekannt, nicht {%1}</translation>
    </message>
    <message>
        <source>cannot use {id} (there is no job yet)</source>
        <translation>kann {id} nicht verwenden (es gibt noch keinen Job)</translation>
    </message>
    <message>
        <source>must be DELETE, POST, PUT or PATCH</source>
        <translation>muss DELETE, POST, PUT oder PATCH sein</translation>
    </message>
    <message>
        <source>must name a member, not the whole body</source>
        <translation>muss ein Element nennen, nicht den ganzen Rumpf</translation>
    </message>
    <message>
        <source>must name a member, not the whole object</source>
        <translation>muss ein Element nennen, nicht das ganze Objekt</translation>
    </message>
    <message>
        <source>must be a positive number (1 or 100)</source>
        <translation>muss eine positive Zahl sein (1 oder 100)</translation>
    </message>
    <message>
        <source>the service&apos;s status string cannot be empty</source>
        <translation>die Statuszeichenkette des Dienstes darf nicht leer sein</translation>
    </message>
    <message>
        <source>must be one of queued, running, input_required, succeeded, failed, canceled, timed_out</source>
        <translation>muss einer von queued, running, input_required, succeeded, failed, canceled, timed_out sein</translation>
    </message>
    <message>
        <source>profile: not valid JSON (line %1: %2)</source>
        <translation>Profil: kein gültiges JSON (Zeile %1: %2)</translation>
    </message>
    <message>
        <source>profile: must be a JSON object</source>
        <translation>Profil: muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>Nothing arrived on the job&apos;s event stream for %1 s; reconnecting.</source>
        <translation>Seit %1 s kam nichts über den Ereignisstrom des Jobs; neu verbinden.</translation>
    </message>
    <message>
        <source>The job&apos;s event stream went silent and timed out.</source>
        <translation>Der Ereignisstrom des Jobs ist verstummt und hat das Zeitlimit überschritten.</translation>
    </message>
    <message>
        <source>The job&apos;s event stream was interrupted: %1</source>
        <translation>Der Ereignisstrom des Jobs wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>The kickoff reply (HTTP %1) is not a job object.</source>
        <translation>Die Startantwort (HTTP %1) ist kein Job-Objekt.</translation>
    </message>
    <message>
        <source>The kickoff reply names no job id (looked at %1 and the Location header).</source>
        <translation>Die Startantwort nennt keine Job-ID (gesucht unter %1 und im Location-Header).</translation>
    </message>
    <message>
        <source>The events URL answered with %1 instead of an event stream; polling instead.</source>
        <translation>Die Ereignis-URL hat mit %1 statt mit einem Ereignisstrom geantwortet; stattdessen wird abgefragt.</translation>
    </message>
</context>
<context>
    <name>JsonSchema</name>
    <message>
        <source>The answer</source>
        <translation>Die Antwort</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>must be text</source>
        <translation>muss Text sein</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>muss eine Zahl sein</translation>
    </message>
    <message>
        <source>must be a whole number</source>
        <translation>muss eine ganze Zahl sein</translation>
    </message>
    <message>
        <source>must be true or false</source>
        <translation>muss wahr oder falsch sein</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>muss ein Objekt sein</translation>
    </message>
    <message>
        <source>must be a list</source>
        <translation>muss eine Liste sein</translation>
    </message>
    <message>
        <source>must be null</source>
        <translation>muss null sein</translation>
    </message>
    <message>
        <source>has the wrong type</source>
        <translation>hat den falschen Typ</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>darf nicht leer sein</translation>
    </message>
    <message>
        <source>must be at least %1 characters long</source>
        <translation>muss mindestens %1 Zeichen lang sein</translation>
    </message>
    <message>
        <source>must be at most %1 characters long</source>
        <translation>darf höchstens %1 Zeichen lang sein</translation>
    </message>
    <message>
        <source>does not have the expected form (%1)</source>
        <translation>hat nicht die erwartete Form (%1)</translation>
    </message>
    <message>
        <source>is not a valid %1</source>
        <translation>ist kein gültiger Wert für %1</translation>
    </message>
    <message>
        <source>must be at least %1</source>
        <translation>muss mindestens %1 sein</translation>
    </message>
    <message>
        <source>must be at most %1</source>
        <translation>darf höchstens %1 sein</translation>
    </message>
    <message>
        <source>must be more than %1</source>
        <translation>muss größer als %1 sein</translation>
    </message>
    <message>
        <source>must be less than %1</source>
        <translation>muss kleiner als %1 sein</translation>
    </message>
    <message>
        <source>%1: is required</source>
        <translation>%1: ist ein Pflichtfeld</translation>
    </message>
    <message>
        <source>is not a field of this form</source>
        <translation>ist kein Feld dieses Formulars</translation>
    </message>
    <message>
        <source>needs at least %1 entries</source>
        <translation>braucht mindestens %1 Einträge</translation>
    </message>
    <message>
        <source>takes at most %1 entries</source>
        <translation>nimmt höchstens %1 Einträge</translation>
    </message>
    <message>
        <source>lists %1 twice</source>
        <translation>enthält %1 doppelt</translation>
    </message>
    <message>
        <source>must be one of %1</source>
        <translation>muss einer dieser Werte sein: %1</translation>
    </message>
    <message>
        <source>must be %1</source>
        <translation>muss %1 sein</translation>
    </message>
    <message>
        <source>is none of the allowed choices</source>
        <translation>ist keine der erlaubten Auswahlen</translation>
    </message>
    <message>
        <source>No JSON value given.</source>
        <translation>Kein JSON-Wert angegeben.</translation>
    </message>
    <message>
        <source>Not valid JSON: more than one value.</source>
        <translation>Kein gültiges JSON: mehr als ein Wert.</translation>
    </message>
    <message>
        <source>Not valid JSON: %1 (at character %2).</source>
        <translation>Kein gültiges JSON: %1 (bei Zeichen %2).</translation>
    </message>
</context>
<context>
    <name>Keychain</name>
    <message>
        <source>The system keychain is not available (%1). API keys are only stored there; to keep one anyway, allow the less secure plain-file store in the settings.</source>
        <translation>Der Schlüsselbund des Systems ist nicht verfügbar (%1). API-Schlüssel werden nur dort gespeichert; um trotzdem einen zu behalten, erlauben Sie in den Einstellungen die weniger sichere Ablage in einer unverschlüsselten Datei.</translation>
    </message>
    <message>
        <source>no Secret Service</source>
        <translation>kein Secret Service</translation>
    </message>
    <message>
        <source>The keychain refused: %1</source>
        <translation>Der Schlüsselbund hat abgelehnt: %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>No API key is stored for %1.</source>
        <translation>Für %1 ist kein API-Schlüssel gespeichert.</translation>
    </message>
    <message>
        <source>The system keychain did not answer within 15 s (is it waiting to be unlocked?).</source>
        <translation>Der Schlüsselbund des Systems hat nicht innerhalb von 15 s geantwortet (wartet er auf das Entsperren?).</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The plain key file %1 is damaged; it was left untouched. Repair or remove it, then save the key again.</source>
        <translation>Die Klartext-Schlüsseldatei %1 ist beschädigt; sie wurde nicht verändert. Reparieren oder entfernen Sie sie und speichern Sie den Schlüssel dann erneut.</translation>
    </message>
</context>
<context>
    <name>LangGraphConnector</name>
    <message>
        <source>The thread is still busy with another run: %1</source>
        <translation>Der Thread ist noch mit einem anderen Lauf beschäftigt: %1</translation>
    </message>
    <message>
        <source>The Agent Server&apos;s reply is not a JSON object.</source>
        <translation>Die Antwort des Agent Servers ist kein JSON-Objekt.</translation>
    </message>
    <message>
        <source>The thread %1 has no run to follow.</source>
        <translation>Der Thread %1 hat keinen Lauf, dem gefolgt werden kann.</translation>
    </message>
    <message>
        <source>The graph failed (run %1).</source>
        <translation>Der Graph ist fehlgeschlagen (Lauf %1).</translation>
    </message>
    <message>
        <source>No run of the thread is known yet.</source>
        <translation>Noch ist kein Lauf des Threads bekannt.</translation>
    </message>
    <message>
        <source>cancellation requested; waiting for the run to stop</source>
        <translation>Abbruch angefordert; warte, bis der Lauf stoppt</translation>
    </message>
    <message>
        <source>The graph no longer waits for an answer (thread %1).</source>
        <translation>Der Graph wartet nicht mehr auf eine Antwort (Thread %1).</translation>
    </message>
    <message>
        <source>The Agent Server&apos;s reply names no run.</source>
        <translation>Die Antwort des Agent Servers nennt keinen Lauf.</translation>
    </message>
    <message>
        <source>graph %1</source>
        <translation>Graph %1</translation>
    </message>
    <message>
        <source>LangGraph Agent Server</source>
        <translation>LangGraph Agent Server</translation>
    </message>
    <message>
        <source>LangGraph Agent Server API</source>
        <translation>LangGraph-Agent-Server-API</translation>
    </message>
    <message>
        <source>LangGraph Agent Server API (%1 server)</source>
        <translation>LangGraph-Agent-Server-API (%1-Server)</translation>
    </message>
    <message>
        <source>The assistants could not be listed: %1</source>
        <translation>Die Assistenten konnten nicht aufgelistet werden: %1</translation>
    </message>
    <message>
        <source>background runs with resumable streams</source>
        <translation>Hintergrundläufe mit fortsetzbaren Streams</translation>
    </message>
    <message>
        <source>interrupts answered by resume</source>
        <translation>Unterbrechungen, beantwortet durch Fortsetzen</translation>
    </message>
    <message>
        <source>cancel (interrupt)</source>
        <translation>Abbrechen (interrupt)</translation>
    </message>
    <message>
        <source>thread search</source>
        <translation>Thread-Suche</translation>
    </message>
    <message>
        <source>The graph asks for a review.</source>
        <translation>Der Graph bittet um eine Prüfung.</translation>
    </message>
    <message>
        <source>The graph asks for approval: %1</source>
        <translation>Der Graph bittet um Freigabe: %1</translation>
    </message>
    <message>
        <source>Any JSON value</source>
        <translation>Beliebiger JSON-Wert</translation>
    </message>
    <message>
        <source>The graph waits for a value: %1</source>
        <translation>Der Graph wartet auf einen Wert: %1</translation>
    </message>
    <message>
        <source>An event that is not JSON was skipped.</source>
        <translation>Ein Ereignis, das kein JSON ist, wurde übersprungen.</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>eigenes Ereignis</translation>
    </message>
    <message>
        <source>The graph failed.</source>
        <translation>Der Graph ist fehlgeschlagen.</translation>
    </message>
    <message>
        <source>interrupt</source>
        <translation>Unterbrechung</translation>
    </message>
    <message>
        <source>The graph waits for a person.</source>
        <translation>Der Graph wartet auf einen Menschen.</translation>
    </message>
    <message>
        <source>Nothing arrived on the run&apos;s stream for %1 s; joining it again.</source>
        <translation>Seit %1 s kam nichts über den Stream des Laufs; er wird erneut verbunden.</translation>
    </message>
    <message>
        <source>The run&apos;s stream went silent and timed out.</source>
        <translation>Der Stream des Laufs ist verstummt; Zeitüberschreitung.</translation>
    </message>
    <message>
        <source>The run&apos;s stream was interrupted: %1</source>
        <translation>Der Stream des Laufs wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>Name the assistant or graph to run (--agent).</source>
        <translation>Nennen Sie den Assistenten oder Graphen, der laufen soll (--agent).</translation>
    </message>
    <message>
        <source>The Agent Server created no thread.</source>
        <translation>Der Agent Server hat keinen Thread angelegt.</translation>
    </message>
    <message>
        <source>The run&apos;s stream answered with %1 instead of an event stream; polling instead.</source>
        <translation>Der Stream des Laufs antwortete mit %1 statt mit einem Ereignis-Stream; stattdessen wird abgefragt.</translation>
    </message>
    <message>
        <source>The run was never created on thread %1.</source>
        <translation>Der Lauf wurde im Thread %1 nie angelegt.</translation>
    </message>
    <message>
        <source>stream error</source>
        <translation>Stream-Fehler</translation>
    </message>
    <message>
        <source>The search %1 did not answer with a list.</source>
        <translation>Die Suche %1 hat nicht mit einer Liste geantwortet.</translation>
    </message>
</context>
<context>
    <name>McpConnector</name>
    <message>
        <source>the task had already ended</source>
        <translation>die Aufgabe war bereits beendet</translation>
    </message>
    <message>
        <source>cancellation requested; waiting for the task to stop</source>
        <translation>Abbruch angefordert; warte, bis die Aufgabe anhält</translation>
    </message>
    <message>
        <source>deleting a task on an MCP server (it expires by its ttl)</source>
        <translation>Löschen einer Aufgabe auf einem MCP-Server (sie läuft nach ihrer TTL ab)</translation>
    </message>
    <message>
        <source>This run holds no question of the server to answer (it was answered, or the server lost the session it was asked on).</source>
        <translation>Dieser Lauf hat keine Frage des Servers zu beantworten (sie wurde beantwortet, oder der Server hat die Sitzung verloren, in der sie gestellt wurde).</translation>
    </message>
    <message>
        <source>The MCP server lost the session the question was asked on; it can no longer be answered.</source>
        <translation>Der MCP-Server hat die Sitzung verloren, in der die Frage gestellt wurde; sie kann nicht mehr beantwortet werden.</translation>
    </message>
    <message>
        <source>The task no longer waits for an answer (it is %1).</source>
        <translation>Die Aufgabe wartet nicht mehr auf eine Antwort (sie ist %1).</translation>
    </message>
    <message>
        <source>answer</source>
        <translation>Antwort</translation>
    </message>
    <message>
        <source>listing tasks (MCP 2026-07-28 has no tasks/list)</source>
        <translation>Aufgaben auflisten (MCP 2026-07-28 kennt kein tasks/list)</translation>
    </message>
    <message>
        <source>tool calls as tasks</source>
        <translation>Werkzeugaufrufe als Aufgaben</translation>
    </message>
    <message>
        <source>task list</source>
        <translation>Aufgabenliste</translation>
    </message>
    <message>
        <source>task cancel</source>
        <translation>Aufgabenabbruch</translation>
    </message>
    <message>
        <source>tasks extension</source>
        <translation>Aufgaben-Erweiterung</translation>
    </message>
    <message>
        <source>The server declares no tasks: its tools cannot run as tasks.</source>
        <translation>Der Server kündigt keine Aufgaben an: Seine Werkzeuge können nicht als Aufgaben laufen.</translation>
    </message>
    <message>
        <source>The server answered with error %1.</source>
        <translation>Der Server hat mit Fehler %1 geantwortet.</translation>
    </message>
    <message>
        <source>status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>structured content</source>
        <translation>strukturierter Inhalt</translation>
    </message>
    <message>
        <source>The tool failed without saying why.</source>
        <translation>Das Werkzeug ist fehlgeschlagen, ohne den Grund zu nennen.</translation>
    </message>
    <message>
        <source>progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>An elicitation is answered accept, decline or cancel, not &quot;%1&quot;.</source>
        <translation>Eine Rückfrage wird mit accept, decline oder cancel beantwortet, nicht mit „%1“.</translation>
    </message>
    <message>
        <source>The form has fields to fill in: answer with a value (--value JSON).</source>
        <translation>Das Formular hat auszufüllende Felder: Antworten Sie mit einem Wert (--value JSON).</translation>
    </message>
    <message>
        <source>The server asks you to open a URL: accept (--approve) or decline (--reject).</source>
        <translation>Der Server bittet Sie, eine URL zu öffnen: annehmen (--approve) oder ablehnen (--reject).</translation>
    </message>
    <message>
        <source>The answer to a form is a JSON object of its fields.</source>
        <translation>Die Antwort auf ein Formular ist ein JSON-Objekt seiner Felder.</translation>
    </message>
    <message numerus="yes">
        <source>The form has %n field(s): answer with a JSON object of them (--value).</source>
        <translation>
            <numerusform>Das Formular hat %n Feld: Antworten Sie mit einem JSON-Objekt davon (--value).</numerusform>
            <numerusform>Das Formular hat %n Felder: Antworten Sie mit einem JSON-Objekt davon (--value).</numerusform>
        </translation>
    </message>
    <message>
        <source>This answer does not fit the request.</source>
        <translation>Diese Antwort passt nicht zur Anfrage.</translation>
    </message>
    <message>
        <source>The server keeps this task for %1 s after it was created (its ttl); MCP has no delete, so deleting the run removes it here only.</source>
        <translation>Der Server behält diese Aufgabe %1 s nach ihrer Erstellung (ihre TTL); MCP kennt kein Löschen, daher entfernt das Löschen des Laufs ihn nur hier.</translation>
    </message>
    <message>
        <source>The server keeps this task without a time limit (no ttl); MCP has no delete, so deleting the run removes it here only.</source>
        <translation>Der Server behält diese Aufgabe ohne Zeitlimit (keine TTL); MCP kennt kein Löschen, daher entfernt das Löschen des Laufs ihn nur hier.</translation>
    </message>
    <message>
        <source>task lifetime</source>
        <translation>Lebensdauer der Aufgabe</translation>
    </message>
    <message>
        <source>Nothing arrived on the task&apos;s result stream for %1 s; asking again.</source>
        <translation>Seit %1 s kam nichts auf dem Ergebnis-Stream der Aufgabe; erneut anfragen.</translation>
    </message>
    <message>
        <source>The task&apos;s result stream went silent and timed out.</source>
        <translation>Der Ergebnis-Stream der Aufgabe verstummte und lief ab.</translation>
    </message>
    <message>
        <source>The task&apos;s result stream was interrupted: %1</source>
        <translation>Der Ergebnis-Stream der Aufgabe wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>Name the tool to run (--agent TOOL).</source>
        <translation>Nennen Sie das auszuführende Werkzeug (--agent TOOL).</translation>
    </message>
    <message>
        <source>A tool&apos;s arguments are a JSON object (--input).</source>
        <translation>Die Argumente eines Werkzeugs sind ein JSON-Objekt (--input).</translation>
    </message>
    <message>
        <source>The MCP server cannot run tool calls as tasks (it declares no tasks capability).</source>
        <translation>Der MCP-Server kann Werkzeugaufrufe nicht als Aufgaben ausführen (er kündigt keine Aufgaben-Fähigkeit an).</translation>
    </message>
    <message>
        <source>The MCP server has no tool &quot;%1&quot; (runwatch-cli agents lists them).</source>
        <translation>Der MCP-Server hat kein Werkzeug „%1“ (runwatch-cli agents listet sie auf).</translation>
    </message>
    <message>
        <source>The tool &quot;%1&quot; cannot run as a task (its execution.taskSupport is forbidden); nothing was sent.</source>
        <translation>Das Werkzeug „%1“ kann nicht als Aufgabe laufen (sein execution.taskSupport ist forbidden); nichts wurde gesendet.</translation>
    </message>
    <message>
        <source>The MCP server answered the tool call with neither a task nor a result.</source>
        <translation>Der MCP-Server hat den Werkzeugaufruf weder mit einer Aufgabe noch mit einem Ergebnis beantwortet.</translation>
    </message>
    <message>
        <source>The task&apos;s result is too large.</source>
        <translation>Das Ergebnis der Aufgabe ist zu groß.</translation>
    </message>
    <message>
        <source>The task&apos;s result stream closed before the result.</source>
        <translation>Der Ergebnis-Stream der Aufgabe wurde vor dem Ergebnis geschlossen.</translation>
    </message>
    <message>
        <source>The MCP server opened no session.</source>
        <translation>Der MCP-Server hat keine Sitzung eröffnet.</translation>
    </message>
    <message>
        <source>The MCP server lost the session %1 (it restarted or closed it). Its pending question can no longer be answered; the task is followed on a new session.</source>
        <translation>Der MCP-Server hat die Sitzung %1 verloren (er wurde neu gestartet oder hat sie geschlossen). Seine offene Frage kann nicht mehr beantwortet werden; die Aufgabe wird in einer neuen Sitzung verfolgt.</translation>
    </message>
    <message>
        <source>The MCP server lost the session %1 (it restarted or closed it); the task is followed on a new session.</source>
        <translation>Der MCP-Server hat die Sitzung %1 verloren (er wurde neu gestartet oder hat sie geschlossen); die Aufgabe wird in einer neuen Sitzung verfolgt.</translation>
    </message>
    <message>
        <source>session lost</source>
        <translation>Sitzung verloren</translation>
    </message>
    <message>
        <source>The MCP server lost the session this task was started on, and the task with it (the server&apos;s task store is bound to sessions): %1</source>
        <translation>Der MCP-Server hat die Sitzung verloren, in der diese Aufgabe gestartet wurde, und mit ihr die Aufgabe (der Aufgabenspeicher des Servers ist an Sitzungen gebunden): %1</translation>
    </message>
    <message>
        <source>The MCP server&apos;s reply broke off before it answered.</source>
        <translation>Die Antwort des MCP-Servers brach ab, bevor sie die Anfrage beantwortete.</translation>
    </message>
    <message>
        <source>The MCP server&apos;s reply holds no answer to the request.</source>
        <translation>Die Antwort des MCP-Servers enthält keine Antwort auf die Anfrage.</translation>
    </message>
    <message>
        <source>The MCP server does not offer revision %1.</source>
        <translation>Der MCP-Server bietet die Revision %1 nicht an.</translation>
    </message>
    <message>
        <source>The MCP server&apos;s initialize reply names no protocol version.</source>
        <translation>Die initialize-Antwort des MCP-Servers nennt keine Protokollversion.</translation>
    </message>
</context>
<context>
    <name>OpenAiAgentsConnector</name>
    <message>
        <source>The service&apos;s answer is not a page.</source>
        <translation>Die Antwort des Dienstes ist keine Seite.</translation>
    </message>
    <message>
        <source>cancel sent; waiting for the turn to stop</source>
        <translation>Abbruch gesendet; es wird gewartet, bis die Runde endet</translation>
    </message>
    <message>
        <source>The session reached its budget.</source>
        <translation>Die Sitzung hat ihr Budget erreicht.</translation>
    </message>
    <message>
        <source>The session failed without saying why.</source>
        <translation>Die Sitzung ist ohne Angabe von Gründen fehlgeschlagen.</translation>
    </message>
    <message>
        <source>commentary</source>
        <translation>Kommentar</translation>
    </message>
    <message>
        <source>The agent is thinking.</source>
        <translation>Der Agent denkt nach.</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>tool result</source>
        <translation>Tool-Ergebnis</translation>
    </message>
    <message>
        <source>item</source>
        <translation>Element</translation>
    </message>
    <message>
        <source>The turn failed without saying why.</source>
        <translation>Die Runde ist ohne Angabe von Gründen fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Answer the form with a JSON object of its fields (--value).</source>
        <translation>Beantworten Sie das Formular mit einem JSON-Objekt seiner Felder (--value).</translation>
    </message>
    <message>
        <source>Nothing arrived on the session&apos;s stream for %1 s; following it again.</source>
        <translation>Seit %1 s kam nichts über den Stream der Sitzung; er wird erneut verfolgt.</translation>
    </message>
    <message>
        <source>The session&apos;s stream went silent and timed out.</source>
        <translation>Der Stream der Sitzung ist verstummt und hat das Zeitlimit überschritten.</translation>
    </message>
    <message>
        <source>The session&apos;s stream was interrupted: %1</source>
        <translation>Der Stream der Sitzung wurde unterbrochen: %1</translation>
    </message>
    <message>
        <source>Name the agent to run (--agent; agents lists them).</source>
        <translation>Nennen Sie den Agenten, der laufen soll (--agent; agents listet sie).</translation>
    </message>
    <message>
        <source>The service created no session.</source>
        <translation>Der Dienst hat keine Sitzung erstellt.</translation>
    </message>
    <message>
        <source>The session&apos;s stream is not an event stream.</source>
        <translation>Der Stream der Sitzung ist kein Ereignis-Stream.</translation>
    </message>
    <message>
        <source>The session&apos;s history does not have the run&apos;s turn %1.</source>
        <translation>Der Verlauf der Sitzung enthält die Runde %1 des Laufs nicht.</translation>
    </message>
    <message>
        <source>The session&apos;s stream reported an error.</source>
        <translation>Der Stream der Sitzung hat einen Fehler gemeldet.</translation>
    </message>
    <message>
        <source>The agent asks you to sign in.</source>
        <translation>Der Agent bittet Sie, sich anzumelden.</translation>
    </message>
    <message>
        <source>The agent asks you to sign in to %1.</source>
        <translation>Der Agent bittet Sie, sich bei %1 anzumelden.</translation>
    </message>
</context>
<context>
    <name>OpenAiConnector</name>
    <message>
        <source>The server&apos;s answer is not a Response object.</source>
        <translation>Die Antwort des Servers ist kein Response-Objekt.</translation>
    </message>
    <message>
        <source>already finished</source>
        <translation>bereits beendet</translation>
    </message>
    <message>
        <source>already </source>
        <translation>bereits </translation>
    </message>
    <message>
        <source>not found on the server (already deleted or expired)</source>
        <translation>auf dem Server nicht gefunden (bereits gelöscht oder abgelaufen)</translation>
    </message>
    <message>
        <source>The response does not wait for input (it is %1).</source>
        <translation>Die Response wartet nicht auf eine Eingabe (sie ist %1).</translation>
    </message>
    <message>
        <source>without a status</source>
        <translation>ohne Status</translation>
    </message>
    <message>
        <source>The Responses API has no listing of responses.</source>
        <translation>Die Responses-API bietet keine Auflistung von Responses.</translation>
    </message>
    <message>
        <source>Approve or reject the model&apos;s tool call(s): %1</source>
        <translation>Tool-Aufruf(e) des Modells freigeben oder ablehnen: %1</translation>
    </message>
    <message>
        <source>The model waits for the output of: %1</source>
        <translation>Das Modell wartet auf die Ausgabe von: %1</translation>
    </message>
    <message>
        <source>The response is incomplete (%1).</source>
        <translation>Die Response ist unvollständig (%1).</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>kein Grund angegeben</translation>
    </message>
    <message>
        <source>Malformed event after sequence %1: %2</source>
        <translation>Fehlerhaftes Ereignis nach Sequenz %1: %2</translation>
    </message>
    <message>
        <source>Malformed event at the start of the stream: %1</source>
        <translation>Fehlerhaftes Ereignis am Anfang des Streams: %1</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>kein JSON-Objekt</translation>
    </message>
    <message>
        <source>The response ended with status &quot;%1&quot;, which Runwatch does not know.</source>
        <translation>Die Response endete mit dem Status „%1“, den Runwatch nicht kennt.</translation>
    </message>
    <message>
        <source>The server answered the create request with something that is not a Response object.</source>
        <translation>Der Server hat auf die Erstell-Anfrage mit etwas geantwortet, das kein Response-Objekt ist.</translation>
    </message>
    <message>
        <source>Expected an event stream but the server sent %1.</source>
        <translation>Ein Ereignisstrom war erwartet, aber der Server hat %1 gesendet.</translation>
    </message>
    <message>
        <source>no content type</source>
        <translation>keinen Content-Type</translation>
    </message>
    <message>
        <source>Only an Azure AI Foundry project&apos;s endpoint (…/api/projects/NAME/openai/v1) lists agents.</source>
        <translation>Nur der Endpunkt eines Azure-AI-Foundry-Projekts (…/api/projects/NAME/openai/v1) listet Agenten.</translation>
    </message>
    <message>
        <source>The project&apos;s agent list is not a list.</source>
        <translation>Die Agentenliste des Projekts ist keine Liste.</translation>
    </message>
    <message>
        <source>An agent is named NAME or NAME:VERSION.</source>
        <translation>Ein Agent wird als NAME oder NAME:VERSION angegeben.</translation>
    </message>
    <message>
        <source>The server answered the conversation request without a conversation id.</source>
        <translation>Der Server hat die Anfrage nach einer Unterhaltung ohne deren ID beantwortet.</translation>
    </message>
    <message>
        <source>The service refused streaming for this agent (%1). Runwatch follows the run by polling it instead.</source>
        <translation>Der Dienst hat Streaming für diesen Agenten abgelehnt (%1). Runwatch verfolgt den Lauf stattdessen durch Abfragen.</translation>
    </message>
    <message>
        <source>The service refused background mode for this agent (%1). The run was created without it; if its stream breaks, Runwatch polls it.</source>
        <translation>Der Dienst hat den Hintergrundmodus für diesen Agenten abgelehnt (%1). Der Lauf wurde ohne ihn erstellt; bricht sein Stream ab, fragt Runwatch ihn ab.</translation>
    </message>
    <message>
        <source>Followed otherwise</source>
        <translation>Anders verfolgt</translation>
    </message>
    <message>
        <source>Nobody answered the agent&apos;s tool calls within the service&apos;s 10-minute window: the response has expired. Start a new run to go on.</source>
        <translation>Niemand hat die Tool-Aufrufe des Agenten im 10-Minuten-Fenster des Dienstes beantwortet: die Antwort ist abgelaufen. Starte einen neuen Lauf, um weiterzumachen.</translation>
    </message>
    <message>
        <source>The service refuses both background mode and streaming for this agent: Runwatch cannot follow a run that answers only when it is over.</source>
        <translation>Der Dienst lehnt für diesen Agenten sowohl den Hintergrundmodus als auch Streaming ab: Runwatch kann keinem Lauf folgen, der erst antwortet, wenn er vorbei ist.</translation>
    </message>
</context>
<context>
    <name>RunBackend</name>
    <message>
        <source>This connection cannot send a follow-up to a working run.</source>
        <translation>Diese Verbindung kann einem laufenden Lauf keine Nachfrage schicken.</translation>
    </message>
    <message>
        <source>This connection has no stronger cancel.</source>
        <translation>Diese Verbindung hat keinen stärkeren Abbruch.</translation>
    </message>
</context>
<context>
    <name>RunDeadlines</name>
    <message>
        <source>Over deadline since %1 — cancel requested</source>
        <translation>Frist überschritten seit %1 — Abbruch angefordert</translation>
    </message>
    <message>
        <source>Over deadline since %1</source>
        <translation>Frist überschritten seit %1</translation>
    </message>
    <message>
        <source>Deadline %1 — cancels then</source>
        <translation>Frist %1 — wird dann abgebrochen</translation>
    </message>
    <message>
        <source>Deadline %1</source>
        <translation>Frist %1</translation>
    </message>
</context>
<context>
    <name>RunEvents</name>
    <message>
        <source>Reasoning</source>
        <translation>Überlegung</translation>
    </message>
    <message>
        <source>Refusal</source>
        <translation>Verweigerung</translation>
    </message>
</context>
<context>
    <name>RunExport</name>
    <message>
        <source>not reported</source>
        <translation>nicht gemeldet</translation>
    </message>
    <message>
        <source>Turn %1 (run %2, %3)</source>
        <translation>Runde %1 (Lauf %2, %3)</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>Prompt:</translation>
    </message>
    <message>
        <source>Answer:</source>
        <translation>Antwort:</translation>
    </message>
    <message>
        <source>No output.</source>
        <translation>Keine Ausgabe.</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Remote id</source>
        <translation>Remote-ID</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Service</source>
        <translation>Dienst</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Erstellt</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>Input tokens</source>
        <translation>Eingabe-Tokens</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>Ausgabe-Tokens</translation>
    </message>
    <message>
        <source>Reasoning tokens</source>
        <translation>Reasoning-Tokens</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>Kosten</translation>
    </message>
    <message>
        <source>Follow-up to</source>
        <translation>Nachfrage zu</translation>
    </message>
    <message>
        <source>Conversation so far</source>
        <translation>Bisheriges Gespräch</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>Status history</source>
        <translation>Statusverlauf</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>Reasoning, tools and progress</source>
        <translation>Reasoning, Werkzeuge und Fortschritt</translation>
    </message>
    <message>
        <source>Later turns</source>
        <translation>Spätere Runden</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Retryable: </source>
        <translation>Wiederholbar: </translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Operator journal</source>
        <translation>Bedienerprotokoll</translation>
    </message>
</context>
<context>
    <name>RunFilter</name>
    <message>
        <source>All</source>
        <translation>Alle</translation>
    </message>
    <message>
        <source>Active</source>
        <translation>Aktiv</translation>
    </message>
    <message>
        <source>Needs me</source>
        <translation>Wartet auf mich</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Abgeschlossen</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Stuck</source>
        <translation>Festgefahren</translation>
    </message>
</context>
<context>
    <name>RunFilterProxy</name>
    <message>
        <source>Found: %1</source>
        <translation>Gefunden: %1</translation>
    </message>
</context>
<context>
    <name>RunFormat</name>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 m %2 s</source>
        <comment>minutes and seconds</comment>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 m</source>
        <comment>hours and minutes</comment>
        <translation>%1 Std. %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <comment>days and hours</comment>
        <translation>%1 T. %2 Std.</translation>
    </message>
    <message>
        <source>MMM d HH:mm</source>
        <comment>QDateTime format of a time on another day</comment>
        <translation>d. MMM HH:mm</translation>
    </message>
    <message>
        <source>%1k</source>
        <comment>thousands of tokens</comment>
        <translation>%1k</translation>
    </message>
    <message>
        <source>%1M</source>
        <comment>millions of tokens</comment>
        <translation>%1 Mio.</translation>
    </message>
    <message>
        <source>%1G</source>
        <comment>billions of tokens</comment>
        <translation>%1 Mrd.</translation>
    </message>
</context>
<context>
    <name>RunList</name>
    <message>
        <source>an answer</source>
        <translation>eine Antwort</translation>
    </message>
    <message>
        <source>an approval</source>
        <translation>eine Freigabe</translation>
    </message>
    <message>
        <source>a choice</source>
        <translation>eine Auswahl</translation>
    </message>
    <message>
        <source>tool outputs</source>
        <translation>Tool-Ausgaben</translation>
    </message>
    <message>
        <source>authentication</source>
        <translation>eine Anmeldung</translation>
    </message>
    <message>
        <source>a timer</source>
        <translation>einen Timer</translation>
    </message>
    <message>
        <source>a callback</source>
        <translation>einen Callback</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>Titel</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Last activity</source>
        <translation>Zuletzt aktiv</translation>
    </message>
    <message>
        <source>Needs input, time is up</source>
        <translation>Eingabe nötig, Zeit abgelaufen</translation>
    </message>
    <message>
        <source>Time is up</source>
        <translation>Zeit abgelaufen</translation>
    </message>
    <message>
        <source>Needs input, %1 left</source>
        <translation>Eingabe nötig, noch %1</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>Wartet</translation>
    </message>
    <message>
        <source>Waiting for callback</source>
        <translation>Wartet auf Callback</translation>
    </message>
    <message>
        <source>Waiting for timer</source>
        <translation>Wartet auf Timer</translation>
    </message>
    <message>
        <source>Reconnecting</source>
        <translation>Verbindet neu</translation>
    </message>
    <message>
        <source>Reconnecting, next try in %1 s</source>
        <translation>Verbindet neu, nächster Versuch in %1 s</translation>
    </message>
    <message>
        <source>Backend status: %1</source>
        <translation>Status im Backend: %1</translation>
    </message>
    <message>
        <source>Connection lost — reconnecting…</source>
        <translation>Verbindung verloren – verbinde neu …</translation>
    </message>
    <message numerus="yes">
        <source>%n tries failed in a row: %1</source>
        <translation>
            <numerusform>%n Versuch in Folge fehlgeschlagen: %1</numerusform>
            <numerusform>%n Versuche in Folge fehlgeschlagen: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting for: %1</source>
        <translation>Wartet auf: %1</translation>
    </message>
    <message>
        <source>%1% done</source>
        <translation>%1 % erledigt</translation>
    </message>
    <message>
        <source>finishing</source>
        <translation>wird abgeschlossen</translation>
    </message>
    <message>
        <source>about %1 left</source>
        <translation>noch etwa %1</translation>
    </message>
    <message>
        <source>Input tokens</source>
        <translation>Eingabe-Tokens</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>Ausgabe-Tokens</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>Kosten</translation>
    </message>
    <message>
        <source>Cancelling, not confirmed</source>
        <translation>Wird abgebrochen, nicht bestätigt</translation>
    </message>
    <message>
        <source>Not confirmed</source>
        <translation>Nicht bestätigt</translation>
    </message>
    <message>
        <source>Stopped watching, not confirmed</source>
        <translation>Nicht mehr verfolgt, unbestätigt</translation>
    </message>
</context>
<context>
    <name>RunManager</name>
    <message>
        <source>The run has no server id yet.</source>
        <translation>Der Lauf hat noch keine Server-ID.</translation>
    </message>
    <message>
        <source>This connection cannot cancel runs.</source>
        <translation>Diese Verbindung kann keine Läufe abbrechen.</translation>
    </message>
    <message>
        <source>This connection cannot delete runs on the server; remove it locally instead.</source>
        <translation>Diese Verbindung kann keine Läufe auf dem Server löschen; entfernen Sie ihn stattdessen lokal.</translation>
    </message>
    <message>
        <source>This connection does not accept answers.</source>
        <translation>Diese Verbindung nimmt keine Antworten an.</translation>
    </message>
    <message>
        <source>The server closed the connection before identifying the run.</source>
        <translation>Der Server hat die Verbindung geschlossen, bevor er den Lauf identifiziert hat.</translation>
    </message>
    <message>
        <source>The event stream ended before the run did.</source>
        <translation>Der Ereignisstrom endete vor dem Lauf.</translation>
    </message>
    <message>
        <source>Stopped following after %1 s without progress (the give-up bound): %2</source>
        <translation>Folgen nach %1 s ohne Fortschritt beendet (Grenze von --give-up-after): %2</translation>
    </message>
    <message>
        <source>The connection &quot;%1&quot; is not configured.</source>
        <translation>Die Verbindung „%1“ ist nicht eingerichtet.</translation>
    </message>
    <message>
        <source>The run has already finished.</source>
        <translation>Der Lauf ist bereits beendet.</translation>
    </message>
    <message>
        <source>No such run.</source>
        <translation>Diesen Lauf gibt es nicht.</translation>
    </message>
    <message>
        <source>follow-up not taken</source>
        <translation>Nachfrage nicht angenommen</translation>
    </message>
    <message>
        <source>Unknown backend &quot;%1&quot; (known: %2).</source>
        <translation>Unbekanntes Backend „%1“ (bekannt: %2).</translation>
    </message>
    <message>
        <source>No connection named &quot;%1&quot;.</source>
        <translation>Keine Verbindung namens „%1“.</translation>
    </message>
    <message>
        <source>No run &quot;%1&quot;.</source>
        <translation>Kein Lauf „%1“.</translation>
    </message>
    <message>
        <source>This connection cannot follow runs up.</source>
        <translation>Diese Verbindung kann Läufen keine Nachfrage folgen lassen.</translation>
    </message>
    <message>
        <source>Only a completed or working run can be followed up (this one is %1).</source>
        <translation>Nur einem abgeschlossenen oder arbeitenden Lauf kann eine Nachfrage folgen (dieser ist %1).</translation>
    </message>
    <message>
        <source>Only a completed run can be followed up (this one is %1).</source>
        <translation>Nur einem abgeschlossenen Lauf kann eine Nachfrage folgen (dieser ist %1).</translation>
    </message>
    <message>
        <source>A follow-up needs a prompt.</source>
        <translation>Eine Nachfrage braucht einen Prompt.</translation>
    </message>
    <message>
        <source>This connection cannot start a run from structured input.</source>
        <translation>Diese Verbindung kann keinen Lauf mit strukturierter Eingabe starten.</translation>
    </message>
    <message>
        <source>This connection has no stronger cancel.</source>
        <translation>Diese Verbindung hat keinen stärkeren Abbruch.</translation>
    </message>
    <message>
        <source>A forced cancel follows a cancel the service has not confirmed; cancel the run first.</source>
        <translation>Ein erzwungener Abbruch folgt auf einen Abbruch, den der Dienst nicht bestätigt hat; brechen Sie den Lauf zuerst ab.</translation>
    </message>
    <message>
        <source>Stop watching follows a cancel the service has not confirmed; cancel the run first.</source>
        <translation>„Nicht mehr verfolgen“ folgt auf einen Abbruch, den der Dienst nicht bestätigt hat; brechen Sie den Lauf zuerst ab.</translation>
    </message>
    <message>
        <source>the service confirmed: %1</source>
        <translation>der Dienst hat bestätigt: %1</translation>
    </message>
    <message>
        <source>The service did not confirm the cancel. It last said “%1” at %2.</source>
        <translation>Der Dienst hat den Abbruch nicht bestätigt. Zuletzt meldete er „%1“ um %2.</translation>
    </message>
    <message>
        <source>Reading it once more failed: %1</source>
        <translation>Das erneute Abfragen schlug fehl: %1</translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation>Grund: %1</translation>
    </message>
    <message>
        <source>stopped watching</source>
        <translation>nicht mehr verfolgt</translation>
    </message>
    <message>
        <source>answer not taken</source>
        <translation>Antwort nicht angenommen</translation>
    </message>
    <message>
        <source>This request was already answered by %1 at %2.</source>
        <translation>Diese Anfrage wurde bereits von %1 um %2 beantwortet.</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>Unknown</source>
        <translation>Unbekannt</translation>
    </message>
    <message>
        <source>Queued</source>
        <translation>In Warteschlange</translation>
    </message>
    <message>
        <source>In progress</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Cancelling</source>
        <translation>Wird abgebrochen</translation>
    </message>
    <message>
        <source>Needs input</source>
        <translation>Eingabe nötig</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Abgeschlossen</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Incomplete</source>
        <translation>Unvollständig</translation>
    </message>
    <message>
        <source>Expired</source>
        <translation>Abgelaufen</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>Zeitüberschreitung</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>Gelöscht</translation>
    </message>
    <message>
        <source>Stopped watching</source>
        <translation>Nicht verfolgt</translation>
    </message>
</context>
<context>
    <name>RunStore</name>
    <message>
        <source>Cannot open the run store %1: %2</source>
        <translation>Der Laufspeicher %1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>SQL failed (%1): %2</source>
        <translation>SQL fehlgeschlagen (%1): %2</translation>
    </message>
    <message>
        <source>Cannot read the schema version: %1</source>
        <translation>Die Schemaversion kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The run store %1 was written by a newer Runwatch (schema %2, this version knows %3). It was left untouched; use the newer version or another --store.</source>
        <translation>Der Laufspeicher %1 wurde von einem neueren Runwatch geschrieben (Schema %2, diese Version kennt %3). Er blieb unverändert; verwenden Sie die neuere Version oder einen anderen --store.</translation>
    </message>
    <message>
        <source>Upgrading the run store to schema %1 failed: %2</source>
        <translation>Die Aktualisierung des Laufspeichers auf Schema %1 ist fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Cannot prepare the run store&apos;s statements: %1</source>
        <translation>Die Anweisungen des Laufspeichers können nicht vorbereitet werden: %1</translation>
    </message>
    <message>
        <source>Cannot save run %1: %2</source>
        <translation>Lauf %1 kann nicht gespeichert werden: %2</translation>
    </message>
    <message>
        <source>The run store is not open.</source>
        <translation>Der Laufspeicher ist nicht geöffnet.</translation>
    </message>
    <message>
        <source>Cannot search the run store: %1</source>
        <translation>Der Laufspeicher kann nicht durchsucht werden: %1</translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation>der Server hat die Verbindung geschlossen</translation>
    </message>
    <message>
        <source>Lost the connection to the run store %1: %2</source>
        <translation>Verbindung zur Laufdatenbank %1 verloren: %2</translation>
    </message>
    <message>
        <source>Cannot reach the run store %1 (trying again in %2 s): %3</source>
        <translation>Laufdatenbank %1 nicht erreichbar (neuer Versuch in %2 s): %3</translation>
    </message>
    <message>
        <source>the connection to the store is closed</source>
        <translation>die Verbindung zur Datenbank ist geschlossen</translation>
    </message>
    <message>
        <source>No run store was named.</source>
        <translation>Es wurde keine Laufdatenbank angegeben.</translation>
    </message>
    <message>
        <source>The run store URL %1 cannot be read: %2</source>
        <translation>Die URL der Laufdatenbank %1 ist nicht lesbar: %2</translation>
    </message>
    <message>
        <source>The run store URL contains a password. Passwords are never taken from a command line or a settings file: put it in ~/.pgpass, a service file (PGSERVICE) or PGPASSWORD, and leave it out of the URL.</source>
        <translation>Die URL der Laufdatenbank enthält ein Passwort. Passwörter werden nie von der Kommandozeile oder aus einer Einstellungsdatei übernommen: Legen Sie es in ~/.pgpass, eine Service-Datei (PGSERVICE) oder PGPASSWORD und lassen Sie es aus der URL weg.</translation>
    </message>
    <message>
        <source>A PostgreSQL run store needs Qt&apos;s PostgreSQL driver (QPSQL; Debian: libqt6sql6-psql), which is not installed.</source>
        <translation>Eine PostgreSQL-Laufdatenbank braucht den PostgreSQL-Treiber von Qt (QPSQL; Debian: libqt6sql6-psql), der nicht installiert ist.</translation>
    </message>
    <message>
        <source>The run store URL has an option Runwatch does not pass on: %1</source>
        <translation>Die URL der Laufdatenbank hat eine Option, die Runwatch nicht weitergibt: %1</translation>
    </message>
    <message>
        <source>The run store URL&apos;s option %1 contains a &apos;;&apos;.</source>
        <translation>Die Option %1 der URL der Laufdatenbank enthält ein „;“.</translation>
    </message>
</context>
<context>
    <name>Runwatch::ActionController</name>
    <message>
        <source>&amp;New Run…</source>
        <translation>&amp;Neuer Lauf …</translation>
    </message>
    <message>
        <source>Start a new run</source>
        <translation>Einen neuen Lauf starten</translation>
    </message>
    <message>
        <source>&amp;Cancel Run</source>
        <translation>Lauf &amp;abbrechen</translation>
    </message>
    <message>
        <source>Ask the server to stop the selected runs</source>
        <translation>Den Server bitten, die ausgewählten Läufe zu stoppen</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>&amp;Löschen …</translation>
    </message>
    <message>
        <source>Delete the selected runs</source>
        <translation>Die ausgewählten Läufe löschen</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>&amp;Fortsetzen</translation>
    </message>
    <message>
        <source>Reconnect a lost stream or poll the run again</source>
        <translation>Einen verlorenen Stream neu verbinden oder den Lauf erneut abfragen</translation>
    </message>
    <message>
        <source>Res&amp;pond</source>
        <translation>Ant&amp;worten</translation>
    </message>
    <message>
        <source>Answer the run that waits for input</source>
        <translation>Dem Lauf antworten, der auf eine Eingabe wartet</translation>
    </message>
    <message>
        <source>C&amp;opy Output</source>
        <translation>Ausgabe &amp;kopieren</translation>
    </message>
    <message>
        <source>Copy the run&apos;s whole output</source>
        <translation>Die gesamte Ausgabe des Laufs kopieren</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>Akt&amp;ualisieren</translation>
    </message>
    <message>
        <source>Read the selected runs&apos; state from the server</source>
        <translation>Den Zustand der ausgewählten Läufe vom Server lesen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>New Run</source>
        <translation>Neuer Lauf</translation>
    </message>
    <message>
        <source>Copy Output</source>
        <translation>Ausgabe kopieren</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>Cancel Run</source>
        <translation>Lauf abbrechen</translation>
    </message>
    <message>
        <source>Cancel %1?</source>
        <translation>%1 abbrechen?</translation>
    </message>
    <message numerus="yes">
        <source>Cancel %n runs?</source>
        <translation>
            <numerusform>%n Lauf abbrechen?</numerusform>
            <numerusform>%n Läufe abbrechen?</numerusform>
        </translation>
    </message>
    <message>
        <source>The server is asked to stop; the output so far is kept. Cancellation is best effort: a run may still finish.</source>
        <translation>Der Server wird gebeten anzuhalten; die bisherige Ausgabe bleibt erhalten. Der Abbruch ist nicht garantiert: Ein Lauf kann trotzdem noch fertig werden.</translation>
    </message>
    <message>
        <source>Keep Running</source>
        <translation>Weiterlaufen lassen</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) finished before the cancel was sent.</source>
        <translation>
            <numerusform>%n Lauf war fertig, bevor der Abbruch gesendet wurde.</numerusform>
            <numerusform>%n Läufe waren fertig, bevor der Abbruch gesendet wurde.</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete Run</source>
        <translation>Lauf löschen</translation>
    </message>
    <message>
        <source>Delete %1?</source>
        <translation>%1 löschen?</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n runs?</source>
        <translation>
            <numerusform>%n Lauf löschen?</numerusform>
            <numerusform>%n Läufe löschen?</numerusform>
        </translation>
    </message>
    <message>
        <source>Also delete on the &amp;server</source>
        <translation>Auch auf dem &amp;Server löschen</translation>
    </message>
    <message>
        <source>It is removed from this computer only; the server keeps it.</source>
        <translation>Er wird nur von diesem Computer entfernt; der Server behält ihn.</translation>
    </message>
    <message>
        <source>This connection cannot delete runs on the server: the run is removed from this computer only, and the server keeps it.</source>
        <translation>Diese Verbindung kann keine Läufe auf dem Server löschen: Der Lauf wird nur von diesem Computer entfernt, der Server behält ihn.</translation>
    </message>
    <message>
        <source>It is deleted on the server and removed from this computer. This cannot be undone.</source>
        <translation>Er wird auf dem Server gelöscht und von diesem Computer entfernt. Das kann nicht rückgängig gemacht werden.</translation>
    </message>
    <message>
        <source>%1 of %2 runs are deleted on the server; the others are removed from this computer only.</source>
        <translation>%1 von %2 Läufen werden auf dem Server gelöscht; die übrigen werden nur von diesem Computer entfernt.</translation>
    </message>
    <message numerus="yes">
        <source>Resuming %n run(s)…</source>
        <translation>
            <numerusform>%n Lauf wird fortgesetzt …</numerusform>
            <numerusform>%n Läufe werden fortgesetzt …</numerusform>
        </translation>
    </message>
    <message>
        <source>The run is no longer waiting for input.</source>
        <translation>Der Lauf wartet nicht mehr auf eine Eingabe.</translation>
    </message>
    <message numerus="yes">
        <source>Copied %n character(s) of output.</source>
        <translation>
            <numerusform>%n Zeichen der Ausgabe kopiert.</numerusform>
            <numerusform>%n Zeichen der Ausgabe kopiert.</numerusform>
        </translation>
    </message>
    <message>
        <source>The answer was not accepted: %1</source>
        <translation>Die Antwort wurde nicht angenommen: %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Starting %1 failed: %2</source>
        <translation>Starten von %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Cancelling %1 failed: %2</source>
        <translation>Abbrechen von %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Deleting %1 failed: %2</source>
        <translation>Löschen von %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Answering %1 failed: %2</source>
        <translation>Antworten auf %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Refreshing %1 failed: %2</source>
        <translation>Aktualisieren von %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Follow &amp;Up…</source>
        <translation>&amp;Folgenachricht…</translation>
    </message>
    <message>
        <source>Send the next turn of the conversation after a completed run</source>
        <translation>Nach einem abgeschlossenen Lauf die nächste Runde der Unterhaltung senden</translation>
    </message>
    <message>
        <source>Follow Up</source>
        <translation>Folgenachricht</translation>
    </message>
    <message>
        <source>Next message to %1:</source>
        <translation>Nächste Nachricht an %1:</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>%1 can no longer be followed up.</source>
        <translation>Zu %1 kann keine Folgenachricht mehr gesendet werden.</translation>
    </message>
    <message>
        <source>A follow-up needs a message.</source>
        <translation>Eine Folgenachricht braucht einen Text.</translation>
    </message>
    <message>
        <source>Could not follow up: %1</source>
        <translation>Folgenachricht nicht möglich: %1</translation>
    </message>
    <message>
        <source>Follow-up to %1 started.</source>
        <translation>Folgenachricht zu %1 gestartet.</translation>
    </message>
    <message>
        <source>Set &amp;Deadline…</source>
        <translation>&amp;Frist setzen…</translation>
    </message>
    <message>
        <source>Give the selected runs a time budget: warned before, cancelled at the end when asked</source>
        <translation>Den ausgewählten Läufen ein Zeitbudget geben: Warnung davor, auf Wunsch am Ende abgebrochen</translation>
    </message>
    <message>
        <source>Follow-up sent to %1.</source>
        <translation>Nachfrage an %1 gesendet.</translation>
    </message>
    <message>
        <source>The follow-up to %1 was not taken: %2</source>
        <translation>Die Nachfrage an %1 wurde nicht angenommen: %2</translation>
    </message>
    <message numerus="yes">
        <source>Deadline set on %n run(s).</source>
        <translation>
            <numerusform>Frist für %n Lauf gesetzt.</numerusform>
            <numerusform>Frist für %n Läufe gesetzt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deadline removed from %n run(s).</source>
        <translation>
            <numerusform>Frist von %n Lauf entfernt.</numerusform>
            <numerusform>Frist von %n Läufen entfernt.</numerusform>
        </translation>
    </message>
    <message>
        <source>Force Ca&amp;ncel</source>
        <translation>Abbruch er&amp;zwingen</translation>
    </message>
    <message>
        <source>Use the service&apos;s stronger cancel on runs whose cancel it has not confirmed</source>
        <translation>Den stärkeren Abbruch des Dienstes für Läufe verwenden, deren Abbruch er nicht bestätigt hat</translation>
    </message>
    <message>
        <source>Stop &amp;Watching…</source>
        <translation>Nicht mehr &amp;verfolgen…</translation>
    </message>
    <message>
        <source>End runs whose cancel the service has not confirmed, with a record of what the server last said</source>
        <translation>Läufe beenden, deren Abbruch der Dienst nicht bestätigt hat, mit einem Vermerk, was der Server zuletzt sagte</translation>
    </message>
    <message>
        <source>Stop Watching</source>
        <translation>Nicht mehr verfolgen</translation>
    </message>
    <message>
        <source>Why stop watching %1? (kept in its timeline)</source>
        <translation>Warum %1 nicht mehr verfolgen? (wird in seiner Zeitleiste vermerkt)</translation>
    </message>
    <message numerus="yes">
        <source>Why stop watching %n runs? (kept in their timelines)</source>
        <translation>
            <numerusform>Warum %n Lauf nicht mehr verfolgen? (wird in seiner Zeitleiste vermerkt)</numerusform>
            <numerusform>Warum %n Läufe nicht mehr verfolgen? (wird in ihren Zeitleisten vermerkt)</numerusform>
        </translation>
    </message>
    <message>
        <source>The service did not confirm the cancel.</source>
        <translation>Der Dienst hat den Abbruch nicht bestätigt.</translation>
    </message>
    <message numerus="yes">
        <source>Answered %n run(s).</source>
        <translation>
            <numerusform>%n Lauf beantwortet.</numerusform>
            <numerusform>%n Läufe beantwortet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Answered %1 of %2 runs; %3 still wait (see the dialog).</source>
        <translation>%1 von %2 Läufen beantwortet; %3 warten noch (siehe Dialog).</translation>
    </message>
    <message>
        <source>Force-cancelling %1 failed: %2</source>
        <translation>Erzwungener Abbruch von %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Could not stop watching %1: %2</source>
        <translation>%1 konnte nicht aus der Verfolgung genommen werden: %2</translation>
    </message>
    <message>
        <source>The service has not confirmed the cancel of %1; Run › Stop Watching… ends it here.</source>
        <translation>Der Dienst hat den Abbruch von %1 nicht bestätigt; Lauf › Nicht mehr verfolgen… beendet ihn hier.</translation>
    </message>
    <message>
        <source>%1 no longer waits for an answer.</source>
        <translation>%1 wartet nicht mehr auf eine Antwort.</translation>
    </message>
</context>
<context>
    <name>Runwatch::Announcer</name>
    <message>
        <source>Announces status changes of the selected run and runs that need you</source>
        <translation>Meldet Statuswechsel des ausgewählten Laufs und Läufe, die Sie brauchen</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 needs you</source>
        <translation>%1 braucht Sie</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) need you: %1</source>
        <translation>
            <numerusform>%n Lauf braucht Sie: %1</numerusform>
            <numerusform>%n Läufe brauchen Sie: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::AppController</name>
    <message>
        <source>%1 needs a value</source>
        <translation>%1 braucht einen Wert</translation>
    </message>
    <message>
        <source>unknown argument %1</source>
        <translation>unbekanntes Argument %1</translation>
    </message>
    <message>
        <source>--palette takes light or dark</source>
        <translation>--palette nimmt light oder dark</translation>
    </message>
    <message>
        <source>Runs and connections are not saved: %1</source>
        <translation>Läufe und Verbindungen werden nicht gespeichert: %1</translation>
    </message>
    <message>
        <source>Demo Unavailable</source>
        <translation>Demo nicht verfügbar</translation>
    </message>
    <message numerus="yes">
        <source>Removed %n finished run(s) older than %1 day(s).</source>
        <translation>
            <numerusform>%n beendeter Lauf entfernt, der älter als %1 Tag(e) war.</numerusform>
            <numerusform>%n beendete Läufe entfernt, die älter als %1 Tag(e) waren.</numerusform>
        </translation>
    </message>
    <message>
        <source>The run store can be written again: every run is saved.</source>
        <translation>Der Laufspeicher ist wieder beschreibbar: Jeder Lauf ist gespeichert.</translation>
    </message>
    <message>
        <source>Runs not saved: %1. They are kept in memory and saved when the store can be written.</source>
        <translation>Läufe nicht gespeichert: %1. Sie bleiben im Speicher und werden gespeichert, sobald der Laufspeicher beschreibbar ist.</translation>
    </message>
    <message>
        <source>Connected to the run store again.</source>
        <translation>Wieder mit der Laufdatenbank verbunden.</translation>
    </message>
    <message>
        <source>Usage: runwatch [--demo] [--store PATH|URL] [--palette light|dark]

  --demo            start the built-in simulators and demo runs (the default on first
                    launch, when no connection is saved); demo runs are not saved
  --store PATH|URL  run store: a file, or postgresql://user@host:port/database for a
                    team&apos;s (default: $RUNWATCH_STORE, else Settings &gt; Run Store...,
                    else the platform data directory)
  --palette NAME    light or dark colours (Fusion style)
  --version         print the version
</source>
        <translation>Aufruf: runwatch [--demo] [--store PFAD|URL] [--palette light|dark]

  --demo            startet die eingebauten Simulatoren und Demo-Läufe (Standard beim ersten
                    Start, wenn keine Verbindung gespeichert ist); Demo-Läufe werden nicht gespeichert
  --store PFAD|URL  Laufdatenbank: eine Datei oder postgresql://user@host:port/datenbank für die
                    eines Teams (Standard: $RUNWATCH_STORE, sonst Einstellungen &gt; Laufdatenbank...,
                    sonst das Datenverzeichnis der Plattform)
  --palette NAME    helle (light) oder dunkle (dark) Farben (Fusion-Stil)
  --version         gibt die Version aus
</translation>
    </message>
</context>
<context>
    <name>Runwatch::BadgeWidget</name>
    <message>
        <source>Status: %1</source>
        <translation>Status: %1</translation>
    </message>
    <message>
        <source>Status badge of the selected run</source>
        <translation>Statusanzeige des ausgewählten Laufs</translation>
    </message>
</context>
<context>
    <name>Runwatch::BatchRespondDialog</name>
    <message numerus="yes">
        <source>Respond to %n Runs</source>
        <translation>
            <numerusform>%n Lauf beantworten</numerusform>
            <numerusform>%n Läufe beantworten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) wait for an approval. One answer goes to each of them, each its own request.</source>
        <translation>
            <numerusform>%n Lauf wartet auf eine Freigabe. Eine Antwort geht an jeden, jeweils als eigene Anfrage.</numerusform>
            <numerusform>%n Läufe warten auf eine Freigabe. Eine Antwort geht an jeden, jeweils als eigene Anfrage.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) ask the same question. One answer goes to each of them, each its own request.</source>
        <translation>
            <numerusform>%n Lauf stellt dieselbe Frage. Eine Antwort geht an jeden, jeweils als eigene Anfrage.</numerusform>
            <numerusform>%n Läufe stellen dieselbe Frage. Eine Antwort geht an jeden, jeweils als eigene Anfrage.</numerusform>
        </translation>
    </message>
    <message>
        <source>The runs ask in different words; each run&apos;s request is in the list.</source>
        <translation>Die Läufe fragen mit verschiedenen Worten; die Anfrage jedes Laufs steht in der Liste.</translation>
    </message>
    <message>
        <source>Runs to answer</source>
        <translation>Zu beantwortende Läufe</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Not sent yet</source>
        <translation>Noch nicht gesendet</translation>
    </message>
    <message>
        <source>Comment for every run (optional)</source>
        <translation>Kommentar für jeden Lauf (optional)</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>Kommentar</translation>
    </message>
    <message numerus="yes">
        <source>Approve %n runs</source>
        <translation>
            <numerusform>%n Lauf freigeben</numerusform>
            <numerusform>%n Läufe freigeben</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reject %n runs</source>
        <translation>
            <numerusform>%n Lauf ablehnen</numerusform>
            <numerusform>%n Läufe ablehnen</numerusform>
        </translation>
    </message>
    <message>
        <source>Answer for every run</source>
        <translation>Antwort für jeden Lauf</translation>
    </message>
    <message>
        <source>Option for every run</source>
        <translation>Option für jeden Lauf</translation>
    </message>
    <message numerus="yes">
        <source>&amp;Send to %n</source>
        <translation>
            <numerusform>An %n &amp;senden</numerusform>
            <numerusform>An %n &amp;senden</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Send to %n runs</source>
        <translation>
            <numerusform>An %n Lauf senden</numerusform>
            <numerusform>An %n Läufe senden</numerusform>
        </translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>Wird gesendet…</translation>
    </message>
    <message numerus="yes">
        <source>Sending %n answer(s)…</source>
        <translation>
            <numerusform>%n Antwort wird gesendet…</numerusform>
            <numerusform>%n Antworten werden gesendet…</numerusform>
        </translation>
    </message>
    <message>
        <source>✓ Answered</source>
        <translation>✓ Beantwortet</translation>
    </message>
    <message>
        <source>✗ Not taken: %1</source>
        <translation>✗ Nicht angenommen: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n answered</source>
        <translation>
            <numerusform>%n beantwortet</numerusform>
            <numerusform>%n beantwortet</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not taken (still waiting: see each run&apos;s reason)</source>
        <translation>
            <numerusform>%n nicht angenommen (wartet noch: siehe den Grund beim Lauf)</numerusform>
            <numerusform>%n nicht angenommen (warten noch: siehe den Grund bei jedem Lauf)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n on the way</source>
        <translation>
            <numerusform>%n unterwegs</numerusform>
            <numerusform>%n unterwegs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&amp;Approve All (%n)</source>
        <translation>
            <numerusform>Alle &amp;freigeben (%n)</numerusform>
            <numerusform>Alle &amp;freigeben (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&amp;Reject All (%n)</source>
        <translation>
            <numerusform>Alle &amp;ablehnen (%n)</numerusform>
            <numerusform>Alle &amp;ablehnen (%n)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::BrowseRunsDialog</name>
    <message>
        <source>Browse Runs on Connection</source>
        <translation>Läufe einer Verbindung durchsuchen</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Runs on the service</source>
        <translation>Läufe beim Dienst</translation>
    </message>
    <message>
        <source>Remote id</source>
        <translation>Remote-ID</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>Titel</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Erstellt</translation>
    </message>
    <message>
        <source>In Runwatch</source>
        <translation>In Runwatch</translation>
    </message>
    <message>
        <source>Remote ids to attach</source>
        <translation>Remote-IDs zum Anhängen</translation>
    </message>
    <message>
        <source>e.g. resp_… or a task id; several separated by spaces</source>
        <translation>z. B. resp_… oder eine Aufgaben-ID; mehrere durch Leerzeichen getrennt</translation>
    </message>
    <message>
        <source>&amp;Attach</source>
        <translation>&amp;Anhängen</translation>
    </message>
    <message>
        <source>Add the selected runs to the list and follow them</source>
        <translation>Die ausgewählten Läufe zur Liste hinzufügen und ihnen folgen</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <source>&amp;Connection:</source>
        <translation>&amp;Verbindung:</translation>
    </message>
    <message>
        <source>Attach by &amp;id:</source>
        <translation>Über &amp;ID anhängen:</translation>
    </message>
    <message>
        <source>No connection to browse: add one with File ▸ Connections…</source>
        <translation>Keine Verbindung zum Durchsuchen: Fügen Sie eine über Datei ▸ Verbindungen… hinzu</translation>
    </message>
    <message>
        <source>The %1 service offers no list of its runs. Attach a run by its id (for OpenAI, the response id) below.</source>
        <translation>Der Dienst %1 bietet keine Liste seiner Läufe. Hängen Sie einen Lauf unten über seine ID an (bei OpenAI die Response-ID).</translation>
    </message>
    <message>
        <source>Reading the service&apos;s runs…</source>
        <translation>Die Läufe des Dienstes werden gelesen…</translation>
    </message>
    <message>
        <source>The runs could not be read: %1</source>
        <translation>Die Läufe konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>already attached</source>
        <translation>bereits angehängt</translation>
    </message>
    <message>
        <source>Local run %1</source>
        <translation>Lokaler Lauf %1</translation>
    </message>
    <message>
        <source>The service lists no runs.</source>
        <translation>Der Dienst listet keine Läufe.</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on the service</source>
        <translation>
            <numerusform>%n Lauf beim Dienst</numerusform>
            <numerusform>%n Läufe beim Dienst</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n already attached</source>
        <translation>
            <numerusform>, %n bereits angehängt</numerusform>
            <numerusform>, %n bereits angehängt</numerusform>
        </translation>
    </message>
    <message>
        <source>Already attached: %1</source>
        <translation>Bereits angehängt: %1</translation>
    </message>
</context>
<context>
    <name>Runwatch::CancelLadderBanner</name>
    <message>
        <source>Cancel not confirmed</source>
        <translation>Abbruch nicht bestätigt</translation>
    </message>
    <message>
        <source>Force Ca&amp;ncel</source>
        <translation>Abbruch er&amp;zwingen</translation>
    </message>
    <message>
        <source>Force the service to cancel the run</source>
        <translation>Den Dienst zum Abbruch des Laufs zwingen</translation>
    </message>
    <message>
        <source>Stop &amp;Watching…</source>
        <translation>Nicht mehr &amp;verfolgen…</translation>
    </message>
    <message>
        <source>Stop watching the run</source>
        <translation>Den Lauf nicht mehr verfolgen</translation>
    </message>
    <message>
        <source>The service accepted the cancel but has not confirmed it; it still says “%1”. It offers a stronger cancel, or you can stop watching the run.</source>
        <translation>Der Dienst hat den Abbruch angenommen, aber nicht bestätigt; er meldet noch „%1“. Er bietet einen stärkeren Abbruch an, oder Sie verfolgen den Lauf nicht mehr.</translation>
    </message>
    <message>
        <source>The service accepted the cancel but has not confirmed it; it still says “%1”. You can stop watching the run: it ends here, with what the server last said in its timeline, and a later confirmation still updates it.</source>
        <translation>Der Dienst hat den Abbruch angenommen, aber nicht bestätigt; er meldet noch „%1“. Sie können den Lauf nicht mehr verfolgen: Er endet hier, mit dem, was der Server zuletzt sagte, in seiner Zeitleiste, und eine spätere Bestätigung aktualisiert ihn trotzdem.</translation>
    </message>
</context>
<context>
    <name>Runwatch::Cli</name>
    <message>
        <source>usage: %1</source>
        <translation>Verbrauch: %1</translation>
    </message>
    <message>
        <source>, cost %1</source>
        <translation>, Kosten %1</translation>
    </message>
    <message>
        <source>, cost unknown (no price for this model)</source>
        <translation>, Kosten unbekannt (kein Preis für dieses Modell)</translation>
    </message>
    <message>
        <source>stuck: no progress since %1</source>
        <translation>festgefahren: kein Fortschritt seit %1</translation>
    </message>
    <message>
        <source> (expected about %1)</source>
        <translation> (erwartet etwa %1)</translation>
    </message>
</context>
<context>
    <name>Runwatch::Cli::CliApp</name>
    <message>
        <source>API keys are read from the environment only (use --api-key-env VAR).</source>
        <translation>API-Schlüssel werden nur aus der Umgebung gelesen (verwenden Sie --api-key-env VAR).</translation>
    </message>
    <message>
        <source>unknown option %1</source>
        <translation>unbekannte Option %1</translation>
    </message>
    <message>
        <source>no command given</source>
        <translation>kein Befehl angegeben</translation>
    </message>
    <message>
        <source>unknown backend &quot;%1&quot; (known: %2)</source>
        <translation>unbekanntes Backend „%1“ (bekannt: %2)</translation>
    </message>
    <message>
        <source>--give-up-after needs a duration such as 90s, 5m or 1h</source>
        <translation>--give-up-after braucht eine Dauer wie 90s, 5m oder 1h</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>unbekannter Befehl „%1“</translation>
    </message>
    <message>
        <source>no saved connection &quot;%1&quot; (saved: %2)</source>
        <translation>keine gespeicherte Verbindung „%1“ (gespeichert: %2)</translation>
    </message>
    <message>
        <source>no service URL: give --url URL (and --backend) or --connection NAME</source>
        <translation>keine Dienst-URL: Geben Sie --url URL (und --backend) oder --connection NAME an</translation>
    </message>
    <message>
        <source>no run &quot;%1&quot; in the store %2</source>
        <translation>kein Lauf „%1“ in der Laufdatenbank %2</translation>
    </message>
    <message>
        <source>%1 needs exactly one RUN</source>
        <translation>%1 braucht genau einen LAUF</translation>
    </message>
    <message>
        <source>start: unexpected argument %1</source>
        <translation>start: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>runwatch-cli: the run disappeared
</source>
        <translation>runwatch-cli: Der Lauf ist verschwunden
</translation>
    </message>
    <message>
        <source>The server did not acknowledge the run in time.</source>
        <translation>Der Server hat den Lauf nicht rechtzeitig bestätigt.</translation>
    </message>
    <message>
        <source>The cancel request did not finish.</source>
        <translation>Die Abbruchanfrage wurde nicht abgeschlossen.</translation>
    </message>
    <message>
        <source>run %1: %2; nothing changed</source>
        <translation>Lauf %1: %2; nichts geändert</translation>
    </message>
    <message>
        <source>delete: unexpected argument %1</source>
        <translation>delete: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>delete needs a RUN</source>
        <translation>delete braucht einen LAUF</translation>
    </message>
    <message>
        <source>The delete request did not finish.</source>
        <translation>Die Löschanfrage wurde nicht abgeschlossen.</translation>
    </message>
    <message>
        <source>on the server and locally</source>
        <translation>auf dem Server und lokal</translation>
    </message>
    <message>
        <source>locally only</source>
        <translation>nur lokal</translation>
    </message>
    <message>
        <source>Deleted run %1 %2%3
</source>
        <translation>Lauf %1 %2 gelöscht%3
</translation>
    </message>
    <message>
        <source>list: unexpected argument %1</source>
        <translation>list: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>respond needs a RUN</source>
        <translation>respond braucht einen LAUF</translation>
    </message>
    <message>
        <source>respond: --output expects CALL_ID=TEXT</source>
        <translation>respond: --output erwartet CALL_ID=TEXT</translation>
    </message>
    <message>
        <source>respond: unexpected argument %1</source>
        <translation>respond: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>respond: --output goes alone (one per pending tool call)</source>
        <translation>respond: --output steht allein (eines je offenem Tool-Aufruf)</translation>
    </message>
    <message>
        <source>The answer was not acknowledged.</source>
        <translation>Die Antwort wurde nicht bestätigt.</translation>
    </message>
    <message>
        <source>resume takes no arguments</source>
        <translation>resume nimmt keine Argumente</translation>
    </message>
    <message>
        <source>runwatch-cli: run %1: %2
</source>
        <translation>runwatch-cli: Lauf %1: %2
</translation>
    </message>
    <message>
        <source>no unfinished runs to resume</source>
        <translation>keine unvollendeten Läufe zum Fortsetzen</translation>
    </message>
    <message>
        <source>export: unexpected argument %1</source>
        <translation>export: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>export needs a RUN</source>
        <translation>export braucht einen LAUF</translation>
    </message>
    <message>
        <source>export --format must be md or json</source>
        <translation>export --format muss md oder json sein</translation>
    </message>
    <message>
        <source>runwatch-cli: no run &quot;%1&quot; in the store %2
</source>
        <translation>runwatch-cli: kein Lauf „%1“ in der Laufdatenbank %2
</translation>
    </message>
    <message>
        <source>runwatch-cli: cannot write %1: %2
</source>
        <translation>runwatch-cli: %1 kann nicht geschrieben werden: %2
</translation>
    </message>
    <message>
        <source>prune needs --older-than DAYS</source>
        <translation>prune braucht --older-than TAGE</translation>
    </message>
    <message>
        <source>prune: DAYS must be a number ≥ 0</source>
        <translation>prune: TAGE muss eine Zahl ≥ 0 sein</translation>
    </message>
    <message numerus="yes">
        <source>Removed %n finished run(s) older than %1 day(s).
</source>
        <translation>
            <numerusform>%n beendeter Lauf entfernt, der älter als %1 Tag(e) war.
</numerusform>
            <numerusform>%n beendete Läufe entfernt, die älter als %1 Tag(e) waren.
</numerusform>
        </translation>
    </message>
    <message>
        <source>no key</source>
        <translation>kein Schlüssel</translation>
    </message>
    <message>
        <source>app session only</source>
        <translation>nur App-Sitzung</translation>
    </message>
    <message>
        <source>plain file</source>
        <translation>unverschlüsselte Datei</translation>
    </message>
    <message>
        <source>give the key with --api-key-env VAR</source>
        <translation>geben Sie den Schlüssel mit --api-key-env VAR an</translation>
    </message>
    <message>
        <source>connections: unexpected argument %1</source>
        <translation>connections: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>no saved connections in %1 (add them in the app&apos;s Connections dialog)</source>
        <translation>keine gespeicherten Verbindungen in %1 (legen Sie sie im Verbindungsdialog der App an)</translation>
    </message>
    <message>
        <source>[output replaced] the server&apos;s text no longer continues what was printed; the whole current text follows
</source>
        <translation>[Ausgabe ersetzt] Der Text des Servers setzt das Ausgegebene nicht mehr fort; es folgt der gesamte aktuelle Text
</translation>
    </message>
    <message>
        <source>----- output replaced; whole current text: -----
</source>
        <translation>----- Ausgabe ersetzt; gesamter aktueller Text: -----
</translation>
    </message>
    <message>
        <source>[input required] %1
</source>
        <translation>[Eingabe nötig] %1
</translation>
    </message>
    <message>
        <source>[reconnecting] next try in %1 s (%2 failed in a row: %3)
</source>
        <translation>[verbinde neu] nächster Versuch in %1 s (%2 in Folge fehlgeschlagen: %3)
</translation>
    </message>
    <message>
        <source>runwatch-cli: the %1 connection cannot list the service&apos;s runs
</source>
        <translation>runwatch-cli: Die Verbindung %1 kann die Läufe des Dienstes nicht auflisten
</translation>
    </message>
    <message>
        <source>  (local run %1)</source>
        <translation>  (lokaler Lauf %1)</translation>
    </message>
    <message>
        <source>the service lists no runs</source>
        <translation>der Dienst listet keine Läufe</translation>
    </message>
    <message>
        <source>attach needs exactly one REMOTE-ID</source>
        <translation>attach braucht genau eine REMOTE-ID</translation>
    </message>
    <message>
        <source>run %1 already follows %2; watching it</source>
        <translation>Lauf %1 folgt bereits %2; er wird beobachtet</translation>
    </message>
    <message>
        <source>runwatch-cli: cannot attach to &quot;%1&quot;
</source>
        <translation>runwatch-cli: Anhängen an „%1“ nicht möglich
</translation>
    </message>
    <message>
        <source>The service did not answer in time.</source>
        <translation>Der Dienst hat nicht rechtzeitig geantwortet.</translation>
    </message>
    <message>
        <source>Cannot attach to %1: %2</source>
        <translation>Anhängen an %1 nicht möglich: %2</translation>
    </message>
    <message>
        <source>agent takes no arguments</source>
        <translation>agent nimmt keine Argumente</translation>
    </message>
    <message>
        <source>agents takes no arguments</source>
        <translation>agents nimmt keine Argumente</translation>
    </message>
    <message>
        <source>--give-up-after is for watch, resume, attach, start --follow and followup --follow</source>
        <translation>--give-up-after gilt für watch, resume, attach, start --follow und followup --follow</translation>
    </message>
    <message>
        <source>start: --deadline needs a time budget such as 90s, 45m, 2h or 1h30m</source>
        <translation>start: --deadline braucht ein Zeitbudget wie 90s, 45m, 2h oder 1h30m</translation>
    </message>
    <message>
        <source>deadline: --in needs a time budget such as 90s, 45m, 2h or 1h30m</source>
        <translation>deadline: --in braucht ein Zeitbudget wie 90s, 45m, 2h oder 1h30m</translation>
    </message>
    <message>
        <source>deadline: unexpected argument %1</source>
        <translation>deadline: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>deadline needs RUN and either --in DURATION or --clear</source>
        <translation>deadline braucht LAUF und entweder --in DAUER oder --clear</translation>
    </message>
    <message>
        <source>run %1: no deadline</source>
        <translation>Lauf %1: keine Frist</translation>
    </message>
    <message>
        <source>The follow-up was not acknowledged.</source>
        <translation>Die Nachfrage wurde nicht bestätigt.</translation>
    </message>
    <message>
        <source>stuck-rule: --factor needs a number from 1 to 1000</source>
        <translation>stuck-rule: --factor braucht eine Zahl von 1 bis 1000</translation>
    </message>
    <message>
        <source>stuck-rule: --floor needs a duration such as 0, 90s, 2m or 1h</source>
        <translation>stuck-rule: --floor braucht eine Dauer wie 0, 90s, 2m oder 1h</translation>
    </message>
    <message>
        <source>stuck-rule: unexpected argument %1</source>
        <translation>stuck-rule: unerwartetes Argument %1</translation>
    </message>
    <message>
        <source>runwatch-cli: cannot save the stuck rule: %1
</source>
        <translation>runwatch-cli: die Regel für festgefahrene Läufe lässt sich nicht speichern: %1
</translation>
    </message>
    <message>
        <source>stuck: no progress for %1 × the expected duration, at least %2
</source>
        <translation>festgefahren: kein Fortschritt für %1 × die erwartete Dauer, mindestens %2
</translation>
    </message>
    <message>
        <source>list: --remote goes alone</source>
        <translation>list: --remote steht allein</translation>
    </message>
    <message>
        <source>Usage: runwatch-cli [GLOBAL OPTIONS] COMMAND [ARGS]

Global options (before the command):
</source>
        <translation>Aufruf: runwatch-cli [GLOBALE OPTIONEN] BEFEHL [ARGUMENTE]

Globale Optionen (vor dem Befehl):
</translation>
    </message>
    <message>
        <source>connector for --url (default: %1):</source>
        <translation>Konnektor für --url (Standard: %1):</translation>
    </message>
    <message>
        <source>%1 is not an option of the %2 backend</source>
        <translation>%1 ist keine Option des Backends %2</translation>
    </message>
    <message>
        <source>start on %1 needs --agent ID (runwatch-cli agents lists them)</source>
        <translation>start auf %1 braucht --agent ID (runwatch-cli agents listet sie)</translation>
    </message>
    <message>
        <source>agents lists a service&apos;s agents: %1 lists none (use --backend %2)</source>
        <translation>agents listet die Agenten eines Dienstes: %1 listet keine (verwenden Sie --backend %2)</translation>
    </message>
    <message>
        <source>%1: %2; --url is %3</source>
        <translation>%1: %2; --url ist %3</translation>
    </message>
    <message>
        <source>start: --input: %1</source>
        <translation>start: --input: %1</translation>
    </message>
    <message>
        <source>start: --input: the %1 backend cannot start a run from structured input</source>
        <translation>start: --input: das Backend %1 kann keinen Lauf mit strukturierter Eingabe starten</translation>
    </message>
    <message>
        <source>respond: --value: %1</source>
        <translation>respond: --value: %1</translation>
    </message>
    <message>
        <source>respond needs --text, --approve, --reject, --choice, --value or --output</source>
        <translation>respond braucht --text, --approve, --reject, --choice, --value oder --output</translation>
    </message>
    <message>
        <source>respond: --value does not fit the form the run asks for:
  %1
</source>
        <translation>respond: --value passt nicht zum Formular, das der Lauf erwartet:
  %1
</translation>
    </message>
    <message>
        <source>--auth takes bearer, header:NAME (a header name such as x-api-key) or none, not &quot;%1&quot;</source>
        <translation>--auth nimmt bearer, header:NAME (ein Header-Name wie x-api-key) oder none, nicht „%1“</translation>
    </message>
    <message>
        <source>
RUN is the local or the remote id. A stored run started on a saved connection goes through it
again (its options and key) unless --url/--backend are given. API keys never come from the
command line: from the environment, or from a saved connection&apos;s keychain entry. A key the app
kept &quot;for this session only&quot; lives in the app&apos;s memory and cannot reach this process.
Exit codes: 0 completed, 1 other error, 2 usage, 3 failed/expired/rejected/timed out/incomplete,
4 cancelled, 5 waiting for input, 6 still running (status only).
</source>
        <translation>
LAUF ist die lokale oder die Remote-ID. Ein gespeicherter Lauf, der auf einer gespeicherten
Verbindung gestartet wurde, läuft wieder über sie (ihre Optionen und ihren Schlüssel), außer
--url/--backend sind angegeben. API-Schlüssel kommen nie von der Befehlszeile: aus der Umgebung
oder aus dem Schlüsselbundeintrag einer gespeicherten Verbindung. Ein Schlüssel, den die App „nur
für diese Sitzung“ behalten hat, lebt im Speicher der App und erreicht diesen Prozess nicht.
Exit-Codes: 0 abgeschlossen, 1 anderer Fehler, 2 Aufruf, 3 fehlgeschlagen/abgelaufen/abgelehnt/
Zeitüberschreitung/unvollständig, 4 abgebrochen, 5 wartet auf Eingabe, 6 läuft noch (nur status).
</translation>
    </message>
    <message>
        <source>Backends (how each takes the commands):
</source>
        <translation>Backends (wie jedes die Befehle annimmt):
</translation>
    </message>
    <message>
        <source>runwatch-cli: not sending the API key from the environment to %1, where a stored run was started: it was not given for that service (pass --url %1 to send it there, or use a saved connection)
</source>
        <translation>runwatch-cli: der API-Schlüssel aus der Umgebung wird nicht an %1 gesendet, wo ein gespeicherter Lauf gestartet wurde: Er wurde nicht für diesen Dienst angegeben (mit --url %1 wird er dorthin gesendet, oder verwenden Sie eine gespeicherte Verbindung)
</translation>
    </message>
    <message>
        <source>%1: no password on the command line; give it in RUNWATCH_PROXY_PASSWORD (or save the connection in the app, which keeps it in the keychain)</source>
        <translation>%1: kein Passwort auf der Kommandozeile; geben Sie es in RUNWATCH_PROXY_PASSWORD an (oder speichern Sie die Verbindung in der App, die es im Schlüsselbund ablegt)</translation>
    </message>
    <message>
        <source>runwatch-cli: cannot write the output: %1
</source>
        <translation>runwatch-cli: die Ausgabe kann nicht geschrieben werden: %1
</translation>
    </message>
    <message>
        <source>runwatch-cli: the run store %1 could not be written: %2; the run&apos;s latest state is not saved
</source>
        <translation>runwatch-cli: der Laufspeicher %1 konnte nicht geschrieben werden: %2; der letzte Stand des Laufs ist nicht gespeichert
</translation>
    </message>
    <message>
        <source>The run was deleted from the store by another process; stopped following it.</source>
        <translation>Der Lauf wurde von einem anderen Prozess aus dem Laufspeicher gelöscht; er wird nicht mehr verfolgt.</translation>
    </message>
    <message>
        <source>list: --search needs a query (e.g. --search &apos;status:failed &quot;timeout&quot;&apos;)</source>
        <translation>list: --search braucht eine Suchanfrage (z. B. --search &apos;status:failed &quot;timeout&quot;&apos;)</translation>
    </message>
    <message>
        <source>start: --conversation needs new or a conversation id</source>
        <translation>start: --conversation braucht new oder die ID einer Unterhaltung</translation>
    </message>
    <message>
        <source>start: --conversation: the %1 backend has no conversations</source>
        <translation>start: --conversation: das Backend %1 hat keine Unterhaltungen</translation>
    </message>
    <message>
        <source>list: --search: %1</source>
        <translation>list: --search: %1</translation>
    </message>
    <message>
        <source>  --json              JSON Lines output
  --allow-insecure-http  permit plain http:// to a non-loopback host
  --version           print the version

Commands:
  start --prompt TEXT [--input JSON] [--model M] [--agent ID] [--conversation new|ID]
        [--no-stream] [--follow [--give-up-after DURATION]]
        [--deadline DURATION [--cancel-at-deadline]]
                      (--agent: the agent to run, for services that run agents; --conversation:
                      the run is a turn of the service&apos;s conversation, a new one or the one
                      named, and its follow-ups go there too, for services with conversations;
                      --deadline: a time budget such as 45m or 2h, warned before, cancelled at the
                      end when asked; --input: structured input, where the backend takes it (see
                      &quot;Backends&quot; below). The prompt titles the run)
  followup RUN --prompt TEXT [--follow [--give-up-after DURATION]]
                      the next turn after a completed run, as the backend continues a
                      conversation (see &quot;Backends&quot;): a run of its own, printed like start&apos;s;
                      status shows its parent
  watch RUN [--give-up-after DURATION]
                      primary text to stdout as it arrives, secondary output to stderr;
                      resumes after drops; exits at a terminal state or when input is required.
                      Trouble that waiting can cure never ends following (&quot;[reconnecting]
                      next try in N s&quot;); --give-up-after (90s, 5m, 1h; also for resume and
                      attach) stops after that long without progress, exit 1
  status RUN          refreshes and prints the run
  cancel RUN [--stop-watching-after DURATION]
                      cancels and waits (bounded) until the run is terminal; with
                      --stop-watching-after (30s, 5m): when the service has not confirmed the
                      cancel by then, stops watching the run, which ends stopped_watching with
                      what the server last said in its timeline (exit 1)
  delete RUN [--local]  deletes on the server (when supported) and locally
  list [--all] [--stuck] [--search QUERY]
                      active runs (--all: every stored run; --stuck: only the live runs
                      without progress for several times their expected duration, shown
                      as &quot;stuck&quot; where the status would be; --search: only the runs whose
                      title, prompt, answer, reasoning, tool calls or error hold every word
                      and &quot;exact phrase&quot; of QUERY, newest first, each with the part that
                      matched; filters status:S backend:B connection:C model:M since:7d
                      until:2026-11-01, commas for several, word* for a prefix)
  list --remote       the service&apos;s own list of runs, incl. ones started elsewhere: remote
                      id, status, title
  attach REMOTE-ID    adopts a run started elsewhere by its remote id and watches it
  agent               what the service says about itself (e.g. an agent card)
  agents              the service&apos;s agents (id, name, model), where it runs agents
  respond RUN (--text T | --approve | --reject [--comment C] | --choice C |
               --value JSON | --output CALL_ID=TEXT ...)
                      --value: a typed answer to a form (the run&apos;s JSON Schema), checked
                      before it is sent; a mistake names the field, exit 2. --output: a tool
                      call&apos;s output (see &quot;Backends&quot;)
  respond RUN RUN... (--approve | --reject [--comment C] | --text T | --choice C)
                      the same answer to each run, each its own request: runs waiting for
                      an approval, or for the same question; one line per run (--json:
                      {&quot;type&quot;:&quot;respond&quot;,&quot;run&quot;:ID,&quot;ok&quot;:…,&quot;error&quot;:…}); a run the answer does
                      not fit is one such line. Exit 0 when every run took it, else 1
  resume              reattaches every unfinished run in the store and follows them all
  export RUN [--format md|json] [--output FILE]   prompt, history, output, secondary, error
  prune --older-than DAYS   removes finished runs that ended more than DAYS days ago
  connections         the saved connections: name, backend, auth style, URL, where the key
                      is kept
  deadline RUN (--in DURATION [--cancel] | --clear)
                      the run&apos;s time budget from now (90s, 45m, 2h, 1h30m); --cancel: cancel
                      it at the deadline (done by whoever follows it: the app, watch)
  stuck-rule [--factor N] [--floor DURATION]
                      when a live run counts as stuck (app, list, status): no progress for
                      N × its expected duration (default 3), never under the floor (2m);
                      without options prints the rule
</source>
        <translation>  --json              Ausgabe als JSON Lines
  --allow-insecure-http  erlaubt einfaches http:// zu einem Host, der nicht Loopback ist
  --version           gibt die Version aus

Befehle:
  start --prompt TEXT [--input JSON] [--model M] [--agent ID] [--conversation new|ID]
        [--no-stream] [--follow [--give-up-after DAUER]]
        [--deadline DAUER [--cancel-at-deadline]]
                      (--agent: der Agent, der laufen soll, bei Diensten mit Agenten;
                      --conversation: der Lauf ist eine Runde der Unterhaltung des Dienstes, einer
                      neuen oder der genannten, und seine Nachfragen gehen auch dorthin, bei
                      Diensten mit Unterhaltungen; --deadline: ein Zeitbudget wie 45m oder 2h,
                      Warnung davor, auf Wunsch am Ende abgebrochen; --input: strukturierte
                      Eingabe, wo das Backend sie annimmt (siehe „Backends“ unten). Der Prompt
                      betitelt den Lauf)
  followup LAUF --prompt TEXT [--follow [--give-up-after DAUER]]
                      die nächste Runde nach einem abgeschlossenen Lauf, so wie das Backend ein
                      Gespräch fortsetzt (siehe „Backends“): ein eigener Lauf, ausgegeben wie bei
                      start; status zeigt seinen Vorgänger
  watch LAUF [--give-up-after DAUER]
                      Haupttext nach stdout, sobald er eintrifft, Nebenausgaben nach stderr;
                      setzt nach Abbrüchen fort; endet bei einem Endzustand oder wenn eine
                      Eingabe nötig ist. Probleme, die sich durch Warten lösen, beenden das
                      Folgen nie („[verbinde neu] nächster Versuch in N s“); --give-up-after
                      (90s, 5m, 1h; auch für resume und attach) hört nach so langer Zeit ohne
                      Fortschritt auf, Exit-Code 1
  status LAUF         aktualisiert den Lauf und gibt ihn aus
  cancel LAUF [--stop-watching-after DAUER]
                      bricht ab und wartet (begrenzt), bis der Lauf in einem Endzustand ist; mit
                      --stop-watching-after (30s, 5m): hat der Dienst den Abbruch bis dahin nicht
                      bestätigt, wird der Lauf nicht mehr verfolgt und endet als stopped_watching,
                      mit dem, was der Server zuletzt sagte, in seiner Zeitleiste (Exit-Code 1)
  delete LAUF [--local]  löscht auf dem Server (wenn unterstützt) und lokal
  list [--all] [--stuck] [--search QUERY]
                      aktive Läufe (--all: jeder gespeicherte Lauf; --stuck: nur die laufenden
                      ohne Fortschritt seit einem Vielfachen ihrer erwarteten Dauer, mit
                      „stuck“ an der Stelle des Status; --search: nur die Läufe, deren Titel,
                      Prompt, Antwort, Reasoning, Tool-Aufrufe oder Fehler jedes Wort und jede
                      &quot;exakte Phrase&quot; von QUERY enthalten, neueste zuerst, jeweils mit der
                      passenden Stelle; Filter status:S backend:B connection:C model:M since:7d
                      until:2026-11-01, Kommas für mehrere, wort* für einen Präfix)
  list --remote       die eigene Laufliste des Dienstes, auch anderswo gestartete Läufe:
                      Remote-ID, Status, Titel
  attach REMOTE-ID    übernimmt einen anderswo gestarteten Lauf über seine Remote-ID und beobachtet ihn
  agent               was der Dienst über sich selbst sagt (z. B. eine Agent Card)
  agents              die Agenten des Dienstes (ID, Name, Modell), wo er Agenten ausführt
  respond LAUF (--text T | --approve | --reject [--comment C] | --choice C |
               --value JSON | --output CALL_ID=TEXT ...)
                      --value: eine typisierte Antwort auf ein Formular (das JSON-Schema des Laufs),
                      vor dem Senden geprüft; ein Fehler nennt das Feld, Exit-Code 2. --output:
                      die Ausgabe eines Tool-Aufrufs (siehe „Backends“)
  respond LAUF LAUF... (--approve | --reject [--comment C] | --text T | --choice C)
                      dieselbe Antwort an jeden Lauf, jeweils als eigene Anfrage: Läufe, die auf
                      eine Freigabe oder dieselbe Frage warten; eine Zeile je Lauf (--json:
                      {&quot;type&quot;:&quot;respond&quot;,&quot;run&quot;:ID,&quot;ok&quot;:…,&quot;error&quot;:…}); ein Lauf, zu dem die Antwort
                      nicht passt, ist eine solche Zeile. Exit-Code 0, wenn jeder Lauf sie
                      angenommen hat, sonst 1
  resume              hängt sich wieder an jeden unvollendeten Lauf der Datenbank und folgt allen
  export LAUF [--format md|json] [--output DATEI]   Prompt, Verlauf, Ausgabe, Nebenausgaben, Fehler
  prune --older-than TAGE   entfernt beendete Läufe, die vor mehr als TAGE Tagen endeten
  connections         die gespeicherten Verbindungen: Name, Backend, Authentifizierungsart, URL,
                      wo der Schlüssel liegt
  deadline LAUF (--in DAUER [--cancel] | --clear)
                      das Zeitbudget des Laufs ab jetzt (90s, 45m, 2h, 1h30m); --cancel: ihn
                      zur Frist abbrechen (tut, wer ihm folgt: die App, watch)
  stuck-rule [--factor N] [--floor DAUER]
                      wann ein laufender Lauf als festgefahren gilt (App, list, status): kein
                      Fortschritt für N × seine erwartete Dauer (Standard 3), nie unter der
                      Untergrenze (2m); ohne Optionen wird die Regel ausgegeben
</translation>
    </message>
    <message>
        <source>cancel: --stop-watching-after expects a duration such as 30s or 5m</source>
        <translation>cancel: --stop-watching-after erwartet eine Dauer wie 30s oder 5m</translation>
    </message>
    <message>
        <source>runwatch-cli cancel --stop-watching-after %1</source>
        <translation>runwatch-cli cancel --stop-watching-after %1</translation>
    </message>
    <message>
        <source>run %1: the service did not confirm the cancel; stopped watching (it last said “%2”)</source>
        <translation>Lauf %1: Der Dienst hat den Abbruch nicht bestätigt; nicht mehr verfolgt (zuletzt meldete er „%2“)</translation>
    </message>
    <message>
        <source>respond: --value and --output answer one run; several runs take --approve, --reject, --text or --choice</source>
        <translation>respond: --value und --output beantworten einen Lauf; mehrere Läufe nehmen --approve, --reject, --text oder --choice</translation>
    </message>
    <message>
        <source>%1: answered (%2)
</source>
        <translation>%1: beantwortet (%2)
</translation>
    </message>
    <message>
        <source>%1: not answered: %2
</source>
        <translation>%1: nicht beantwortet: %2
</translation>
    </message>
    <message>
        <source>start needs --prompt TEXT or --input JSON</source>
        <translation>start braucht --prompt TEXT oder --input JSON</translation>
    </message>
    <message>
        <source>  --url URL           base URL of the service (e.g. https://api.openai.com/v1)
  --connection NAME   a connection saved in the app&apos;s Connections dialog, instead of
                      --backend/--url/--auth and the connection options: its backend, URL, auth
                      style, options and API key (from the OS keychain, or the plain file if you
                      opted in)
  --api-key-env VAR   environment variable holding the API key; overrides a saved key
                      (without --connection the default is RUNWATCH_API_KEY, then the
                      connector&apos;s own variable, e.g. OPENAI_API_KEY)
  --auth STYLE        how the key goes out: bearer (default; Authorization: Bearer KEY),
                      header:NAME (NAME: KEY, e.g. header:api-key for Azure OpenAI,
                      header:x-api-key, header:x-goog-api-key), or none
  --store PATH|URL    run store: a file, or postgresql://user@host:port/database for a team&apos;s
                      (default: $RUNWATCH_STORE or the platform data directory); the password
                      comes from libpq&apos;s PGPASSWORD, ~/.pgpass or service file, never the URL
Connection options (give them on every command; [names]: only those connectors&apos;):
</source>
        <translation>  --url URL           Basis-URL des Dienstes (z. B. https://api.openai.com/v1)
  --connection NAME   eine im Verbindungsdialog der App gespeicherte Verbindung statt
                      --backend/--url/--auth und der Verbindungsoptionen: ihr Backend, ihre URL,
                      Authentifizierung, Optionen und ihr API-Schlüssel (aus dem Schlüsselbund des
                      Systems oder aus der unverschlüsselten Datei, wenn Sie das gewählt haben)
  --api-key-env VAR   Umgebungsvariable mit dem API-Schlüssel; hat Vorrang vor einem gespeicherten
                      Schlüssel (ohne --connection ist der Standard RUNWATCH_API_KEY, dann die
                      eigene Variable des Konnektors, z. B. OPENAI_API_KEY)
  --auth STIL         wie der Schlüssel gesendet wird: bearer (Standard; Authorization: Bearer KEY),
                      header:NAME (NAME: KEY, z. B. header:api-key für Azure OpenAI,
                      header:x-api-key, header:x-goog-api-key) oder none
  --store PFAD|URL    Laufdatenbank: eine Datei oder postgresql://user@host:port/datenbank für die
                      eines Teams (Standard: $RUNWATCH_STORE oder das Datenverzeichnis der
                      Plattform); das Passwort kommt aus PGPASSWORD, ~/.pgpass oder der
                      Service-Datei von libpq, nie aus der URL
Verbindungsoptionen (bei jedem Befehl angeben; [Namen]: nur für diese Konnektoren):
</translation>
    </message>
</context>
<context>
    <name>Runwatch::CommandPalettePopup</name>
    <message>
        <source>Command palette</source>
        <translation>Befehlspalette</translation>
    </message>
    <message>
        <source>Command or run</source>
        <translation>Befehl oder Lauf</translation>
    </message>
    <message>
        <source>Type a command, a run&apos;s title or id…</source>
        <translation>Befehl, Titel oder ID eines Laufs eingeben…</translation>
    </message>
    <message>
        <source>Matching commands and runs</source>
        <translation>Passende Befehle und Läufe</translation>
    </message>
    <message>
        <source>↑↓ to choose · Enter to run or select · Esc to close</source>
        <translation>↑↓ zum Wählen · Eingabe zum Ausführen oder Auswählen · Esc zum Schließen</translation>
    </message>
    <message numerus="yes">
        <source>%n more run(s) match: type more to narrow</source>
        <translation>
            <numerusform>%n weiterer Lauf passt: weiter tippen, um einzugrenzen</numerusform>
            <numerusform>%n weitere Läufe passen: weiter tippen, um einzugrenzen</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing matches “%1”.</source>
        <translation>Nichts passt zu „%1“.</translation>
    </message>
</context>
<context>
    <name>Runwatch::ConnectionOptionsForm</name>
    <message>
        <source>Problems with the options</source>
        <translation>Probleme mit den Optionen</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Choose a file for %1</source>
        <translation>Datei für %1 wählen</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
</context>
<context>
    <name>Runwatch::ConnectionRegistry</name>
    <message>
        <source>The API key of &quot;%1&quot; was kept for one session only; enter it again.</source>
        <translation>Der API-Schlüssel von „%1“ wurde nur für eine Sitzung aufbewahrt; geben Sie ihn erneut ein.</translation>
    </message>
    <message>
        <source>No API key of &quot;%1&quot; is stored in the %2.</source>
        <translation>Für „%1“ ist kein API-Schlüssel gespeichert (%2).</translation>
    </message>
    <message>
        <source>The API key of &quot;%1&quot; could not be read: %2</source>
        <translation>Der API-Schlüssel von „%1“ konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Give the connection a name.</source>
        <translation>Geben Sie der Verbindung einen Namen.</translation>
    </message>
    <message>
        <source>A connection named &quot;%1&quot; exists already.</source>
        <translation>Eine Verbindung namens „%1“ gibt es bereits.</translation>
    </message>
    <message>
        <source>Unknown backend type &quot;%1&quot;.</source>
        <translation>Unbekannter Backend-Typ „%1“.</translation>
    </message>
    <message>
        <source>Enter the service&apos;s base URL, e.g. https://api.openai.com/v1.</source>
        <translation>Geben Sie die Basis-URL des Dienstes ein, z. B. https://api.openai.com/v1.</translation>
    </message>
    <message>
        <source>Choose where to keep the key.</source>
        <translation>Wählen Sie, wo der Schlüssel aufbewahrt wird.</translation>
    </message>
    <message>
        <source>The proxy password of &quot;%1&quot; could not be read: %2</source>
        <translation>Das Proxy-Passwort von „%1“ konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>The proxy password is kept only in the system keychain, which could not take it: %1</source>
        <translation>Das Proxy-Passwort wird nur im Schlüsselbund des Systems aufbewahrt, und der konnte es nicht aufnehmen: %1</translation>
    </message>
</context>
<context>
    <name>Runwatch::ConnectionsDialog</name>
    <message>
        <source>Connections</source>
        <translation>Verbindungen</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Hinzufügen</translation>
    </message>
    <message>
        <source>Add connection</source>
        <translation>Verbindung hinzufügen</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Remove connection</source>
        <translation>Verbindung entfernen</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>Backend type</source>
        <translation>Backend-Typ</translation>
    </message>
    <message>
        <source>&amp;Backend:</source>
        <translation>&amp;Backend:</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>Basis-URL</translation>
    </message>
    <message>
        <source>Base &amp;URL:</source>
        <translation>Basis-&amp;URL:</translation>
    </message>
    <message>
        <source>Authentication style</source>
        <translation>Art der Authentifizierung</translation>
    </message>
    <message>
        <source>Authorization: Bearer &lt;key&gt;</source>
        <translation>Authorization: Bearer &lt;Schlüssel&gt;</translation>
    </message>
    <message>
        <source>No authentication</source>
        <translation>Keine Authentifizierung</translation>
    </message>
    <message>
        <source>A&amp;uthentication:</source>
        <translation>Au&amp;thentifizierung:</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API-Schlüssel</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API-&amp;Schlüssel:</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>Standardmodell</translation>
    </message>
    <message>
        <source>Default &amp;model:</source>
        <translation>Standard&amp;modell:</translation>
    </message>
    <message>
        <source>Allow plain &amp;http:// to a remote host (not recommended)</source>
        <translation>Einfaches &amp;http:// zu einem entfernten Host erlauben (nicht empfohlen)</translation>
    </message>
    <message>
        <source>Allow insecure HTTP</source>
        <translation>Unsicheres HTTP erlauben</translation>
    </message>
    <message>
        <source>Keychain problem</source>
        <translation>Problem mit dem Schlüsselbund</translation>
    </message>
    <message>
        <source>Keep for this &amp;session only</source>
        <translation>Nur für diese &amp;Sitzung behalten</translation>
    </message>
    <message>
        <source>Store &amp;unencrypted…</source>
        <translation>&amp;Unverschlüsselt speichern …</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>Verbindung &amp;testen</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>S&amp;peichern</translation>
    </message>
    <message>
        <source>Remove Connection</source>
        <translation>Verbindung entfernen</translation>
    </message>
    <message>
        <source>Remove the connection &quot;%1&quot; and its stored API key?
Its runs stay in the list.</source>
        <translation>Die Verbindung „%1“ und ihren gespeicherten API-Schlüssel entfernen?
Ihre Läufe bleiben in der Liste.</translation>
    </message>
    <message>
        <source>Store the API Key Unencrypted?</source>
        <translation>API-Schlüssel unverschlüsselt speichern?</translation>
    </message>
    <message>
        <source>The key will be written in plain text to
%1
readable only by your user account. Any program running as you can read it.

Store it there?</source>
        <translation>Der Schlüssel wird im Klartext in
%1
geschrieben, lesbar nur für Ihr Benutzerkonto. Jedes Programm, das unter Ihrem Konto läuft, kann ihn lesen.

Dort speichern?</translation>
    </message>
    <message>
        <source>Stored in the system keychain</source>
        <translation>Im Schlüsselbund des Systems gespeichert</translation>
    </message>
    <message>
        <source>The key is kept in the system keychain, never in a settings file.</source>
        <translation>Der Schlüssel liegt im Schlüsselbund des Systems, nie in einer Einstellungsdatei.</translation>
    </message>
    <message>
        <source>No key stored</source>
        <translation>Kein Schlüssel gespeichert</translation>
    </message>
    <message>
        <source>A key you enter goes to the system keychain.</source>
        <translation>Ein eingegebener Schlüssel kommt in den Schlüsselbund des Systems.</translation>
    </message>
    <message>
        <source>Stored in the system keychain — leave empty to keep</source>
        <translation>Im Schlüsselbund des Systems gespeichert – leer lassen, um ihn zu behalten</translation>
    </message>
    <message>
        <source>The key is kept in the system keychain.</source>
        <translation>Der Schlüssel liegt im Schlüsselbund des Systems.</translation>
    </message>
    <message>
        <source>Kept for this session only — leave empty to keep</source>
        <translation>Nur für diese Sitzung behalten – leer lassen, um ihn zu behalten</translation>
    </message>
    <message>
        <source>No keychain was available: the key is forgotten when Runwatch quits.</source>
        <translation>Es war kein Schlüsselbund verfügbar: Der Schlüssel wird beim Beenden von Runwatch vergessen.</translation>
    </message>
    <message>
        <source>Stored unencrypted — leave empty to keep</source>
        <translation>Unverschlüsselt gespeichert – leer lassen, um ihn zu behalten</translation>
    </message>
    <message>
        <source>You chose to store this key unencrypted in %1.</source>
        <translation>Sie haben gewählt, diesen Schlüssel unverschlüsselt in %1 zu speichern.</translation>
    </message>
    <message>
        <source>Built-in demo connection; it is not saved.</source>
        <translation>Eingebaute Demo-Verbindung; sie wird nicht gespeichert.</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>Speichern …</translation>
    </message>
    <message>
        <source>&lt;b&gt;No system keychain is available&lt;/b&gt;, so the API key was not saved.&lt;br&gt;The keychain said: %1&lt;br&gt;Runwatch never writes API keys to a file on its own. Start a keyring (for example GNOME Keyring or KWallet) and save again, or choose one of these:</source>
        <translation>&lt;b&gt;Kein Schlüsselbund des Systems verfügbar&lt;/b&gt;, daher wurde der API-Schlüssel nicht gespeichert.&lt;br&gt;Der Schlüsselbund meldete: %1&lt;br&gt;Runwatch schreibt API-Schlüssel nie von sich aus in eine Datei. Starten Sie einen Schlüsselbund (zum Beispiel GNOME Keyring oder KWallet) und speichern Sie erneut, oder wählen Sie eine dieser Möglichkeiten:</translation>
    </message>
    <message>
        <source>Not saved yet.</source>
        <translation>Noch nicht gespeichert.</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>Gespeichert.</translation>
    </message>
    <message>
        <source>Connected to “%1”.</source>
        <translation>Verbunden mit „%1“.</translation>
    </message>
    <message>
        <source>Connected to “%1” (%2).</source>
        <translation>Verbunden mit „%1“ (%2).</translation>
    </message>
    <message>
        <source>Skills:</source>
        <translation>Fähigkeiten:</translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>… und %n weitere</numerusform>
            <numerusform>… und %n weitere</numerusform>
        </translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>Hinweis: %1</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>Teste …</translation>
    </message>
    <message>
        <source>Unknown backend type &quot;%1&quot;.</source>
        <translation>Unbekannter Backend-Typ „%1“.</translation>
    </message>
    <message>
        <source>Connected: HTTP %1, the service answered the model list.</source>
        <translation>Verbunden: HTTP %1, der Dienst hat die Modellliste geliefert.</translation>
    </message>
    <message numerus="yes">
        <source>Connected: %n run(s) listed.</source>
        <translation>
            <numerusform>Verbunden: %n Lauf aufgelistet.</numerusform>
            <numerusform>Verbunden: %n Läufe aufgelistet.</numerusform>
        </translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>&amp;Browse runs…</source>
        <translation>Läufe &amp;durchsuchen…</translation>
    </message>
    <message>
        <source>List the runs on this connection, including those started by other clients, and attach to them</source>
        <translation>Die Läufe dieser Verbindung auflisten, auch die von anderen Clients gestarteten, und sich an sie anhängen</translation>
    </message>
    <message>
        <source>The key in a header of its own</source>
        <translation>Der Schlüssel in einem eigenen Header</translation>
    </message>
    <message>
        <source>Header name</source>
        <translation>Header-Name</translation>
    </message>
    <message>
        <source>The key is sent as &quot;&lt;name&gt;: &lt;key&gt;&quot; (api-key for Azure OpenAI).</source>
        <translation>Der Schlüssel wird als „&lt;Name&gt;: &lt;Schlüssel&gt;“ gesendet (api-key für Azure OpenAI).</translation>
    </message>
    <message>
        <source>Hea&amp;der name:</source>
        <translation>Hea&amp;der-Name:</translation>
    </message>
    <message>
        <source>Use the Credentials for the New Server?</source>
        <translation>Anmeldedaten für den neuen Server verwenden?</translation>
    </message>
    <message>
        <source>The API key and the token command of “%1” were set up for %2, but the connection now points to %3.</source>
        <translation>Der API-Schlüssel und der Token-Befehl von „%1“ wurden für %2 eingerichtet, die Verbindung zeigt jetzt aber auf %3.</translation>
    </message>
    <message>
        <source>Credentials are only sent to the server they were given for. Use them for %1 only if that server should have them. To use others, cancel and enter them in the form.</source>
        <translation>Anmeldedaten werden nur an den Server gesendet, für den sie angegeben wurden. Verwenden Sie sie für %1 nur, wenn dieser Server sie erhalten soll. Um andere zu verwenden, brechen Sie ab und geben Sie sie im Formular ein.</translation>
    </message>
    <message>
        <source>Use them for %1</source>
        <translation>Für %1 verwenden</translation>
    </message>
    <message>
        <source>Remove both</source>
        <translation>Beide entfernen</translation>
    </message>
    <message>
        <source>Use the API Key for the New Server?</source>
        <translation>API-Schlüssel für den neuen Server verwenden?</translation>
    </message>
    <message>
        <source>The API key of “%1” was saved for %2, but the connection now points to %3.</source>
        <translation>Der API-Schlüssel von „%1“ wurde für %2 gespeichert, die Verbindung zeigt jetzt aber auf %3.</translation>
    </message>
    <message>
        <source>A key is only sent to the server it was given for. Use the same key for %1 only if that server should have it. To use another key, cancel and enter it in the API key field.</source>
        <translation>Ein Schlüssel wird nur an den Server gesendet, für den er angegeben wurde. Verwenden Sie denselben Schlüssel für %1 nur, wenn dieser Server ihn erhalten soll. Um einen anderen Schlüssel zu verwenden, brechen Sie ab und geben Sie ihn im Feld API-Schlüssel ein.</translation>
    </message>
    <message>
        <source>Use the key for %1</source>
        <translation>Schlüssel für %1 verwenden</translation>
    </message>
    <message>
        <source>Remove the key</source>
        <translation>Schlüssel entfernen</translation>
    </message>
    <message>
        <source>Use the Token Command for the New Server?</source>
        <translation>Token-Befehl für den neuen Server verwenden?</translation>
    </message>
    <message>
        <source>The token command of “%1” was set up for %2, but the connection now points to %3.</source>
        <translation>Der Token-Befehl von „%1“ wurde für %2 eingerichtet, die Verbindung zeigt jetzt aber auf %3.</translation>
    </message>
    <message>
        <source>Its tokens are only sent to the server it was set up for. Keep the command for %1 only if that server should have its tokens. To use another command, cancel and change it.</source>
        <translation>Seine Tokens werden nur an den Server gesendet, für den er eingerichtet wurde. Behalten Sie den Befehl für %1 nur, wenn dieser Server seine Tokens erhalten soll. Um einen anderen Befehl zu verwenden, brechen Sie ab und ändern Sie ihn.</translation>
    </message>
    <message>
        <source>Use the command for %1</source>
        <translation>Befehl für %1 verwenden</translation>
    </message>
    <message>
        <source>Remove the command</source>
        <translation>Befehl entfernen</translation>
    </message>
    <message>
        <source>The stored API key and the token command were not used: they were set up for %1. Enter the key for %2 above to test with it, or save the connection to choose what happens to them.</source>
        <translation>Der gespeicherte API-Schlüssel und der Token-Befehl wurden nicht verwendet: Sie wurden für %1 eingerichtet. Geben Sie oben den Schlüssel für %2 ein, um damit zu testen, oder speichern Sie die Verbindung, um zu entscheiden, was mit ihnen geschieht.</translation>
    </message>
    <message>
        <source>The stored API key was not sent: it was saved for %1. Enter the key for %2 above to test with it.</source>
        <translation>Der gespeicherte API-Schlüssel wurde nicht gesendet: Er wurde für %1 gespeichert. Geben Sie oben den Schlüssel für %2 ein, um damit zu testen.</translation>
    </message>
    <message>
        <source>The token command was not run: it was set up for %1. Save the connection to use it for %2, or change it.</source>
        <translation>Der Token-Befehl wurde nicht ausgeführt: Er wurde für %1 eingerichtet. Speichern Sie die Verbindung, um ihn für %2 zu verwenden, oder ändern Sie ihn.</translation>
    </message>
</context>
<context>
    <name>Runwatch::Connector</name>
    <message>
        <source>A2A agent (1.0, 0.3)</source>
        <translation>A2A-Agent (1.0, 0.3)</translation>
    </message>
    <message>
        <source>the agent&apos;s base URL (its card is read from /.well-known/agent-card.json)</source>
        <translation>die Basis-URL des Agenten (seine Karte wird aus /.well-known/agent-card.json gelesen)</translation>
    </message>
    <message>
        <source>the project endpoint https://&lt;resource&gt;.services.ai.azure.com/api/projects/&lt;project&gt;</source>
        <translation>der Projekt-Endpunkt https://&lt;resource&gt;.services.ai.azure.com/api/projects/&lt;project&gt;</translation>
    </message>
    <message>
        <source>API ve&amp;rsion:</source>
        <translation>API-Ve&amp;rsion:</translation>
    </message>
    <message>
        <source>2025-05-01 (the default)</source>
        <translation>2025-05-01 (Standard)</translation>
    </message>
    <message>
        <source>Sent as ?api-version= on every request (Azure OpenAI and Azure AI Foundry).</source>
        <translation>Wird bei jeder Anfrage als ?api-version= gesendet (Azure OpenAI und Azure AI Foundry).</translation>
    </message>
    <message>
        <source>HTTP job API (202 + polling, SSE)</source>
        <translation>HTTP-Job-API (202 + Abfragen, SSE)</translation>
    </message>
    <message>
        <source>the base the job paths hang off</source>
        <translation>die Basis der Job-Pfade</translation>
    </message>
    <message>
        <source>Jobs &amp;profile:</source>
        <translation>Jobs-&amp;Profil:</translation>
    </message>
    <message>
        <source>/path/to/profile.json (optional)</source>
        <translation>/pfad/zu/profil.json (optional)</translation>
    </message>
    <message>
        <source>The connection profile that fits this job API to the contract (see docs/jobs-profile.md). It is read as you type; its errors name the JSON pointer of the bad value.</source>
        <translation>Das Verbindungsprofil, das diese Job-API an den Vertrag anpasst (siehe docs/jobs-profile.md). Es wird beim Tippen gelesen; seine Fehler nennen den JSON-Pointer des falschen Werts.</translation>
    </message>
    <message>
        <source>OpenAI Responses (OpenAI, Azure OpenAI, compatible)</source>
        <translation>OpenAI Responses (OpenAI, Azure OpenAI, kompatible Dienste)</translation>
    </message>
    <message>
        <source>the API base, e.g. https://api.openai.com/v1</source>
        <translation>die API-Basis, z. B. https://api.openai.com/v1</translation>
    </message>
    <message>
        <source>&amp;Organization:</source>
        <translation>&amp;Organisation:</translation>
    </message>
    <message>
        <source>org-… (OpenAI-Organization header)</source>
        <translation>org-… (Header OpenAI-Organization)</translation>
    </message>
    <message>
        <source>Sent as the OpenAI-Organization header: which organization&apos;s quota and billing the runs use.</source>
        <translation>Wird als Header OpenAI-Organization gesendet: Kontingent und Abrechnung welcher Organisation die Läufe nutzen.</translation>
    </message>
    <message>
        <source>Pro&amp;ject:</source>
        <translation>Pro&amp;jekt:</translation>
    </message>
    <message>
        <source>proj_… (OpenAI-Project header)</source>
        <translation>proj_… (Header OpenAI-Project)</translation>
    </message>
    <message>
        <source>Sent as the OpenAI-Project header.</source>
        <translation>Wird als Header OpenAI-Project gesendet.</translation>
    </message>
    <message>
        <source>e.g. 2025-04-01-preview (Azure)</source>
        <translation>z. B. 2025-04-01-preview (Azure)</translation>
    </message>
    <message>
        <source>Token &amp;command:</source>
        <translation>Token-&amp;Befehl:</translation>
    </message>
    <message>
        <source>a command that prints an access token</source>
        <translation>ein Befehl, der ein Zugriffstoken ausgibt</translation>
    </message>
    <message>
        <source>CA bund&amp;le:</source>
        <translation>CA-Bünde&amp;l:</translation>
    </message>
    <message>
        <source>/path/to/ca.pem (optional)</source>
        <translation>/pfad/zu/ca.pem (optional)</translation>
    </message>
    <message>
        <source>PEM certificates trusted besides the system&apos;s, e.g. a company CA.</source>
        <translation>PEM-Zertifikate, denen zusätzlich zu denen des Systems vertraut wird, z. B. eine Firmen-CA.</translation>
    </message>
    <message>
        <source>Pro&amp;xy:</source>
        <translation>Pro&amp;xy:</translation>
    </message>
    <message>
        <source>http://host:port or socks5://host:port (optional)</source>
        <translation>http://host:port oder socks5://host:port (optional)</translation>
    </message>
    <message>
        <source>Every request of this connection goes through this proxy. A password in it (socks5://user:password@host:port) is kept in the system keychain, not in the saved connection.</source>
        <translation>Jede Anfrage dieser Verbindung geht über diesen Proxy. Ein Passwort darin (socks5://benutzer:passwort@host:port) wird im Schlüsselbund des Systems aufbewahrt, nicht in der gespeicherten Verbindung.</translation>
    </message>
    <message>
        <source>Default time &amp;budget:</source>
        <translation>Standard-Zeit&amp;budget:</translation>
    </message>
    <message>
        <source>e.g. 2h (optional)</source>
        <translation>z. B. 2h (optional)</translation>
    </message>
    <message>
        <source>Runs started on this connection get this deadline: a warning before it, &quot;over deadline&quot; after it. Set Deadline… changes it per run and can cancel at the deadline.</source>
        <translation>Auf dieser Verbindung gestartete Läufe bekommen diese Frist: eine Warnung davor, „Frist überschritten“ danach. „Frist setzen…“ ändert sie je Lauf und kann zur Frist abbrechen.</translation>
    </message>
    <message>
        <source>Prints an access token (Microsoft Entra ID, OAuth, …), sent instead of a key in the connection&apos;s auth style. Run when there is no token, near its expiry and after a 401, without Runwatch&apos;s and other services&apos; API keys in its environment; its output is never shown, logged or stored.</source>
        <translation>Gibt ein Zugriffstoken aus (Microsoft Entra ID, OAuth, …), das statt eines Schlüssels im Authentifizierungsstil der Verbindung gesendet wird. Läuft, wenn es keines gibt, kurz vor dessen Ablauf und nach einem 401, ohne die API-Schlüssel von Runwatch und anderer Dienste in seiner Umgebung; seine Ausgabe wird nie angezeigt, protokolliert oder gespeichert.</translation>
    </message>
    <message>
        <source>start --input: a data part. followup: a new task in the same contextId; a working run takes it as a message to its task, and the same run goes on (a refusal: its error, exit 1). list --remote: ListTasks (A2A 1.0). agent: the agent card.</source>
        <translation>start --input: ein Datenteil. followup: eine neue Aufgabe in derselben contextId; ein laufender Lauf nimmt sie als Nachricht an seine Aufgabe, und derselbe Lauf geht weiter (eine Ablehnung: sein Fehler, Exit-Code 1). list --remote: ListTasks (A2A 1.0). agent: die Agent Card.</translation>
    </message>
    <message>
        <source>start --input: the job&apos;s input. respond: --text to a question, --approve/--reject to an approval, --choice to options, --value to a form.</source>
        <translation>start --input: die Eingabe des Jobs. respond: --text auf eine Frage, --approve/--reject auf eine Freigabe, --choice auf Optionen, --value auf ein Formular.</translation>
    </message>
    <message>
        <source>Key in &amp;query or cookie:</source>
        <translation>Schlüssel in &amp;Query oder Cookie:</translation>
    </message>
    <message>
        <source>yes: when the agent card asks for the key in the URL query or a cookie, send it there. A key in a URL ends up in server and proxy logs. no (the default): the key stays in a header, in the connection&apos;s auth style.</source>
        <translation>yes: Verlangt die Agentenkarte den Schlüssel in der URL-Query oder einem Cookie, wird er dort gesendet. Ein Schlüssel in einer URL landet in Server- und Proxy-Logs. no (Standard): Der Schlüssel bleibt in einem Header, im Authentifizierungsstil der Verbindung.</translation>
    </message>
    <message>
        <source>no (the default) or yes</source>
        <translation>no (Standard) oder yes</translation>
    </message>
    <message>
        <source>LangGraph Agent Server</source>
        <translation>LangGraph Agent Server</translation>
    </message>
    <message>
        <source>the deployment URL (LangSmith Deployment, or a local langgraph dev server)</source>
        <translation>die Deployment-URL (LangSmith Deployment oder ein lokaler langgraph-dev-Server)</translation>
    </message>
    <message>
        <source>--agent: an assistant id or a graph name (agents lists them). start --input: the graph&apos;s input (default {&quot;messages&quot;:[{&quot;role&quot;:&quot;user&quot;,&quot;content&quot;:PROMPT}]}). The run&apos;s remote id is its thread. respond: --approve/--reject [--comment] to a review, --text to a question, --value JSON to resume with any value. followup: a new run on the same thread. list --remote: the deployment&apos;s threads. attach THREAD_ID.</source>
        <translation>--agent: eine Assistenten-ID oder ein Graphname (agents listet sie). start --input: die Eingabe des Graphen (Standard {&quot;messages&quot;:[{&quot;role&quot;:&quot;user&quot;,&quot;content&quot;:PROMPT}]}). Die entfernte ID des Laufs ist sein Thread. respond: --approve/--reject [--comment] auf eine Prüfung, --text auf eine Frage, --value JSON setzt mit einem beliebigen Wert fort. followup: ein neuer Lauf im selben Thread. list --remote: die Threads des Deployments. attach THREAD_ID.</translation>
    </message>
    <message>
        <source>Delete &amp;threads:</source>
        <translation>&amp;Threads löschen:</translation>
    </message>
    <message>
        <source>yes: deleting a run on the server deletes its whole thread (the conversation and every run on it). no (the default): only the run is deleted; the thread stays for its other runs.</source>
        <translation>yes: Das Löschen eines Laufs auf dem Server löscht seinen ganzen Thread (die Unterhaltung und jeden Lauf darin). no (Standard): Nur der Lauf wird gelöscht; der Thread bleibt für seine anderen Läufe.</translation>
    </message>
    <message>
        <source>Azure AI Foundry Agent Service (classic, retiring 2027-03-31)</source>
        <translation>Azure AI Foundry Agent Service (klassisch, endet am 31.03.2027)</translation>
    </message>
    <message>
        <source>Classic threads/runs, retiring 2027-03-31: Foundry&apos;s current agents run through --backend openai on the project&apos;s /openai/v1 endpoint (--agent NAME[:VERSION]). start needs --agent (agents lists them). followup: a message and a new run on the same thread. respond: --output once per pending tool call, all sent in one submit (--text when exactly one is pending); --approve/--reject answer every pending MCP approval.</source>
        <translation>Klassische Threads/Läufe, enden am 31.03.2027: Foundrys aktuelle Agenten laufen über --backend openai am Endpunkt /openai/v1 des Projekts (--agent NAME[:VERSION]). start braucht --agent (agents listet sie auf). followup: eine Nachricht und ein neuer Lauf im selben Thread. respond: --output einmal je offenem Tool-Aufruf, alle in einer Übermittlung gesendet (--text, wenn genau einer offen ist); --approve/--reject beantworten jede offene MCP-Freigabe.</translation>
    </message>
    <message>
        <source>Gemini Interactions (Google AI)</source>
        <translation>Gemini Interactions (Google AI)</translation>
    </message>
    <message>
        <source>the API&apos;s origin, e.g. https://generativelanguage.googleapis.com</source>
        <translation>der Ursprung der API, z. B. https://generativelanguage.googleapis.com</translation>
    </message>
    <message>
        <source>v1beta (the default) or v1</source>
        <translation>v1beta (Standard) oder v1</translation>
    </message>
    <message>
        <source>The version in the path of every request: v1beta (the REST reference&apos;s, the default) or v1 (the default of Google&apos;s @google/genai 3.x client).</source>
        <translation>Die Version im Pfad jeder Anfrage: v1beta (die der REST-Referenz, Standard) oder v1 (der Standard von Googles Client @google/genai 3.x).</translation>
    </message>
    <message>
        <source>start --input: input items. start --conversation new|ID: the run is a turn of a conversation (new: created first). start --agent NAME[:VERSION] on an Azure AI Foundry project&apos;s …/api/projects/P/openai/v1 URL: the project&apos;s agent (agent_reference), in a conversation of its own unless one is named; runwatch-cli agents lists them. followup: the next response, in the run&apos;s conversation, else by previous_response_id. respond: --output once per pending tool call, all sent in one request (--text when exactly one is pending); --approve/--reject answer every pending MCP approval; the run goes on in the next response, which watch RUN follows.</source>
        <translation>start --input: Eingabeelemente. start --conversation new|ID: der Lauf ist eine Runde einer Unterhaltung (new: zuerst erstellt). start --agent NAME[:VERSION] an der URL …/api/projects/P/openai/v1 eines Azure-AI-Foundry-Projekts: der Agent des Projekts (agent_reference), in einer eigenen Unterhaltung, wenn keine genannt ist; runwatch-cli agents listet sie. followup: die nächste Antwort, in der Unterhaltung des Laufs, sonst über previous_response_id. respond: --output einmal je offenem Tool-Aufruf, alle in einer Anfrage gesendet (--text, wenn genau einer offen ist); --approve/--reject beantworten jede offene MCP-Freigabe; der Lauf geht in der nächsten Antwort weiter, der watch LAUF folgt.</translation>
    </message>
    <message>
        <source>start: --model M or --agent AGENT (agents lists both: the models as models/NAME, and the agents such as deep-research-pro-preview-12-2025, which run in the background with their agent config). start --input: the interaction&apos;s input (text, content or steps). respond: --output CALL_ID=TEXT once per pending function call, all in the next interaction (previous_interaction_id), which watch RUN follows under the same run. followup: the next interaction (previous_interaction_id). delete: deletes the run&apos;s interactions on the server.</source>
        <translation>start: --model M oder --agent AGENT (agents listet beides: die Modelle als models/NAME und die Agenten wie deep-research-pro-preview-12-2025, die mit ihrer Agentenkonfiguration im Hintergrund laufen). start --input: die Eingabe der Interaktion (Text, Inhalt oder Schritte). respond: --output CALL_ID=TEXT einmal je offenem Funktionsaufruf, alle in der nächsten Interaktion (previous_interaction_id), der watch LAUF als demselben Lauf folgt. followup: die nächste Interaktion (previous_interaction_id). delete: löscht die Interaktionen des Laufs auf dem Server.</translation>
    </message>
    <message>
        <source>MCP tasks</source>
        <translation>MCP-Aufgaben</translation>
    </message>
    <message>
        <source>the MCP server&apos;s Streamable HTTP endpoint, e.g. http://host:port/mcp</source>
        <translation>der Streamable-HTTP-Endpunkt des MCP-Servers, z. B. http://host:port/mcp</translation>
    </message>
    <message>
        <source>&amp;Session:</source>
        <translation>&amp;Sitzung:</translation>
    </message>
    <message>
        <source>an Mcp-Session-Id to join (optional)</source>
        <translation>eine Mcp-Session-Id zum Beitreten (optional)</translation>
    </message>
    <message>
        <source>Joins this MCP session instead of opening one. A server whose task store is bound to sessions (the official SDK&apos;s default) shows a task only on the session that started it: join that session to list or attach another client&apos;s tasks. Runs always keep the session they were started on.</source>
        <translation>Tritt dieser MCP-Sitzung bei, statt eine zu eröffnen. Ein Server, dessen Aufgabenspeicher an Sitzungen gebunden ist (die Voreinstellung des offiziellen SDK), zeigt eine Aufgabe nur in der Sitzung, die sie gestartet hat: Treten Sie dieser Sitzung bei, um die Aufgaben eines anderen Clients aufzulisten oder zu übernehmen. Läufe behalten immer die Sitzung, in der sie gestartet wurden.</translation>
    </message>
    <message>
        <source>Protocol &amp;version:</source>
        <translation>Protokoll&amp;version:</translation>
    </message>
    <message>
        <source>auto (the default), 2025-11-25 or 2026-07-28</source>
        <translation>auto (Voreinstellung), 2025-11-25 oder 2026-07-28</translation>
    </message>
    <message>
        <source>The MCP revision new sessions speak. auto: 2026-07-28 where the server answers server/discover, else 2025-11-25 (initialize).</source>
        <translation>Die MCP-Revision, die neue Sitzungen sprechen. auto: 2026-07-28, wo der Server auf server/discover antwortet, sonst 2025-11-25 (initialize).</translation>
    </message>
    <message>
        <source>--agent: the tool (agents lists them with their task_support; a forbidden tool is refused before anything is sent). start --input: the tool&apos;s arguments (JSON object); --prompt only titles the run. The run&apos;s remote id is its task. respond: --value JSON accepts the server&apos;s form with that content, --reject declines, --text answers a form of one string field, --choice cancel cancels. delete: local only (the task expires by its ttl). list --remote: tasks/list of the session. attach TASK_ID.</source>
        <translation>--agent: das Werkzeug (agents listet sie mit ihrem task_support; ein verbotenes Werkzeug wird abgewiesen, bevor etwas gesendet wird). start --input: die Argumente des Werkzeugs (JSON-Objekt); --prompt benennt nur den Lauf. Die entfernte ID des Laufs ist seine Aufgabe. respond: --value JSON nimmt das Formular des Servers mit diesem Inhalt an, --reject lehnt ab, --text beantwortet ein Formular mit einem Textfeld, --choice cancel bricht ab. delete: nur lokal (die Aufgabe läuft nach ihrer TTL ab). list --remote: tasks/list der Sitzung. attach TASK_ID.</translation>
    </message>
    <message>
        <source>Claude Managed Agents (beta)</source>
        <translation>Claude Managed Agents (Beta)</translation>
    </message>
    <message>
        <source>the API&apos;s origin, e.g. https://api.anthropic.com</source>
        <translation>der Ursprung der API, z. B. https://api.anthropic.com</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>&amp;Umgebung:</translation>
    </message>
    <message>
        <source>env_… (empty: the account&apos;s first environment)</source>
        <translation>env_… (leer: die erste Umgebung des Kontos)</translation>
    </message>
    <message>
        <source>The environment (environment_id) new sessions run in; the API requires one. Empty: the first environment GET /v1/environments lists.</source>
        <translation>Die Umgebung (environment_id), in der neue Sitzungen laufen; die API verlangt eine. Leer: die erste Umgebung, die GET /v1/environments auflistet.</translation>
    </message>
    <message>
        <source>A session is a conversation and each turn a run. start --agent AGENT_ID (agents lists the account&apos;s agents): a new session, the prompt its first message; the run&apos;s remote id is the session id. respond: --approve/--reject [--comment C] to a tool confirmation (the comment is the deny message), --output CALL_ID=TEXT to a custom tool. followup: the next turn on the same session. cancel: user.interrupt. delete: the session on the service (interrupted first when it runs). list --remote: the sessions. attach SESSION_ID: follows its last turn.</source>
        <translation>Eine Sitzung ist eine Unterhaltung und jede Runde ein Lauf. start --agent AGENT_ID (agents listet die Agenten des Kontos): eine neue Sitzung, der Prompt ist ihre erste Nachricht; die entfernte ID des Laufs ist die Sitzungs-ID. respond: --approve/--reject [--comment C] auf eine Tool-Bestätigung (der Kommentar ist die Ablehnungsnachricht), --output CALL_ID=TEXT für ein eigenes Tool. followup: die nächste Runde in derselben Sitzung. cancel: user.interrupt. delete: die Sitzung auf dem Dienst (zuvor unterbrochen, wenn sie läuft). list --remote: die Sitzungen. attach SESSION_ID: folgt ihrer letzten Runde.</translation>
    </message>
    <message>
        <source>OpenAI Agents API (beta)</source>
        <translation>OpenAI Agents API (Beta)</translation>
    </message>
    <message>
        <source>none (default), or an environment&apos;s JSON</source>
        <translation>none (Standard) oder das JSON einer Umgebung</translation>
    </message>
    <message>
        <source>The environment new sessions run in; the API requires one. Empty or &quot;none&quot;: {&quot;type&quot;:&quot;none&quot;}, the agent without an execution environment. Otherwise the JSON of an environment object, sent as it is.</source>
        <translation>Die Umgebung, in der neue Sitzungen laufen; die API verlangt eine. Leer oder „none“: {&quot;type&quot;:&quot;none&quot;}, der Agent ohne Ausführungsumgebung. Sonst das JSON eines Umgebungsobjekts, so gesendet, wie es ist.</translation>
    </message>
    <message>
        <source>A session is a conversation and each turn a run. start --agent AGENT_ID (agents lists the account&apos;s agents): a new session, the prompt its first message; the run&apos;s remote id is the session id. respond: --approve/--reject to an MCP or browser approval, --output CALL_ID=TEXT to a function call, --value JSON to a sign-in form. followup: the next turn on the same session. cancel: the cancel input event. delete: the session on the service (cancelled first when it runs). list --remote: the sessions. attach SESSION_ID: follows its last turn.</source>
        <translation>Eine Sitzung ist eine Unterhaltung und jede Runde ein Lauf. start --agent AGENT_ID (agents listet die Agenten des Kontos): eine neue Sitzung, der Prompt ist ihre erste Nachricht; die entfernte ID des Laufs ist die Sitzungs-ID. respond: --approve/--reject auf eine MCP- oder Browser-Freigabe, --output CALL_ID=TEXT auf einen Funktionsaufruf, --value JSON auf ein Anmeldeformular. followup: die nächste Runde in derselben Sitzung. cancel: das Abbruch-Eingabeereignis. delete: die Sitzung auf dem Dienst (zuvor abgebrochen, wenn sie läuft). list --remote: die Sitzungen. attach SESSION_ID: folgt ihrer letzten Runde.</translation>
    </message>
</context>
<context>
    <name>Runwatch::ConversationView</name>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>(no answer yet)</source>
        <translation>(noch keine Antwort)</translation>
    </message>
    <message>
        <source>Turn %1 · %2</source>
        <translation>Runde %1 · %2</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>Antwort</translation>
    </message>
    <message>
        <source>Turn %1 · %2 · this run</source>
        <translation>Runde %1 · %2 · dieser Lauf</translation>
    </message>
    <message>
        <source>Follow-up while working</source>
        <translation>Nachfrage während der Arbeit</translation>
    </message>
</context>
<context>
    <name>Runwatch::DeadlineDialog</name>
    <message>
        <source>Set Deadline</source>
        <translation>Frist setzen</translation>
    </message>
    <message>
        <source>&amp;In:</source>
        <translation>&amp;In:</translation>
    </message>
    <message>
        <source>e.g. 45m, 2h, 1h30m</source>
        <translation>z. B. 45m, 2h, 1h30m</translation>
    </message>
    <message>
        <source>Time budget from now</source>
        <translation>Zeitbudget ab jetzt</translation>
    </message>
    <message>
        <source>How long the run may still take, from now: 90s, 45m, 2h, 1h30m, 1d.</source>
        <translation>Wie lange der Lauf ab jetzt noch dauern darf: 90s, 45m, 2h, 1h30m, 1d.</translation>
    </message>
    <message>
        <source>&amp;At:</source>
        <translation>&amp;Um:</translation>
    </message>
    <message>
        <source>Deadline time</source>
        <translation>Zeitpunkt der Frist</translation>
    </message>
    <message>
        <source>&amp;Cancel the run at the deadline</source>
        <translation>Lauf zur Frist &amp;abbrechen</translation>
    </message>
    <message>
        <source>Otherwise the run is only marked over deadline. You are warned 5 minutes before (or at 90% of a shorter budget).</source>
        <translation>Sonst wird der Lauf nur als „Frist überschritten“ markiert. Sie werden 5 Minuten vorher gewarnt (oder bei 90 % eines kürzeren Budgets).</translation>
    </message>
    <message>
        <source>&amp;Remove Deadline</source>
        <translation>Frist &amp;entfernen</translation>
    </message>
    <message>
        <source>A time budget looks like 90s, 45m, 2h or 1h30m.</source>
        <translation>Ein Zeitbudget sieht aus wie 90s, 45m, 2h oder 1h30m.</translation>
    </message>
    <message>
        <source>The deadline must be in the future.</source>
        <translation>Die Frist muss in der Zukunft liegen.</translation>
    </message>
</context>
<context>
    <name>Runwatch::DemoMode</name>
    <message>
        <source>Summarise Q3 usage and costs</source>
        <translation>Nutzung und Kosten für Q3 zusammenfassen</translation>
    </message>
    <message>
        <source>summarise this week&apos;s TLS advisories</source>
        <translation>die TLS-Sicherheitshinweise dieser Woche zusammenfassen</translation>
    </message>
    <message>
        <source>check the TLS setup of every service</source>
        <translation>die TLS-Konfiguration aller Dienste prüfen</translation>
    </message>
    <message>
        <source>export the Q3 billing data</source>
        <translation>die Abrechnungsdaten für Q3 exportieren</translation>
    </message>
    <message>
        <source>rebuild the Q3 cost dashboards</source>
        <translation>die Kosten-Dashboards für Q3 neu erstellen</translation>
    </message>
    <message>
        <source>analyse the Q3 cost drivers</source>
        <translation>die Kostentreiber in Q3 analysieren</translation>
    </message>
    <message>
        <source>weather for Friday&apos;s offsite</source>
        <translation>Wetter für den Teamausflug am Freitag</translation>
    </message>
    <message>
        <source>approve the Q3 compute budget</source>
        <translation>das Rechenbudget für Q3 freigeben</translation>
    </message>
    <message>
        <source>plan Friday&apos;s offsite lunch</source>
        <translation>das Mittagessen beim Teamausflug am Freitag planen</translation>
    </message>
    <message>
        <source>audit the TLS stacks we ship</source>
        <translation>die ausgelieferten TLS-Stacks prüfen</translation>
    </message>
    <message>
        <source>Demo OpenAI</source>
        <translation>Demo OpenAI</translation>
    </message>
    <message>
        <source>Demo agent</source>
        <translation>Demo-Agent</translation>
    </message>
    <message>
        <source>Demo jobs</source>
        <translation>Demo-Jobs</translation>
    </message>
    <message>
        <source>Demo Foundry</source>
        <translation>Demo Foundry</translation>
    </message>
    <message>
        <source>Demo mode · a built-in simulator for each connector on 127.0.0.1 · runs are not saved</source>
        <translation>Demo-Modus · ein eingebauter Simulator je Konnektor auf 127.0.0.1 · Läufe werden nicht gespeichert</translation>
    </message>
    <message>
        <source>release the Q3 cost report</source>
        <translation>den Kostenbericht für Q3 veröffentlichen</translation>
    </message>
    <message>
        <source>Demo LangGraph</source>
        <translation>Demo LangGraph</translation>
    </message>
    <message>
        <source>send the Q3 report and clean up</source>
        <translation>den Q3-Bericht senden und aufräumen</translation>
    </message>
    <message>
        <source>Demo Gemini</source>
        <translation>Demo Gemini</translation>
    </message>
    <message>
        <source>find the sources on last week&apos;s TLS incident</source>
        <translation>die Quellen zum TLS-Vorfall der letzten Woche finden</translation>
    </message>
    <message>
        <source>compare how the EU and the US regulate AI model audits</source>
        <translation>vergleichen, wie die EU und die USA Audits von KI-Modellen regeln</translation>
    </message>
    <message>
        <source>Demo MCP</source>
        <translation>Demo MCP</translation>
    </message>
    <message>
        <source>Plan the database migration</source>
        <translation>Die Datenbankmigration planen</translation>
    </message>
    <message>
        <source>Demo Claude Agents</source>
        <translation>Demo Claude-Agenten</translation>
    </message>
    <message>
        <source>compare the OpenSSL 3.0.12 and 3.0.13 releases</source>
        <translation>die Releases OpenSSL 3.0.12 und 3.0.13 vergleichen</translation>
    </message>
    <message>
        <source>check the release folder before packaging</source>
        <translation>den Release-Ordner vor dem Paketieren prüfen</translation>
    </message>
    <message>
        <source>Demo OpenAI Agents</source>
        <translation>Demo OpenAI-Agenten</translation>
    </message>
    <message>
        <source>find the branches nobody works on any more</source>
        <translation>die Branches finden, an denen niemand mehr arbeitet</translation>
    </message>
    <message>
        <source>clean up the stale branches</source>
        <translation>die veralteten Branches aufräumen</translation>
    </message>
</context>
<context>
    <name>Runwatch::DemoSimulators</name>
    <message>
        <source>OpenAI simulator: %1</source>
        <translation>OpenAI-Simulator: %1</translation>
    </message>
    <message>
        <source>A2A simulator: %1</source>
        <translation>A2A-Simulator: %1</translation>
    </message>
    <message>
        <source>jobs simulator: %1</source>
        <translation>Jobs-Simulator: %1</translation>
    </message>
    <message>
        <source>Foundry simulator: %1</source>
        <translation>Foundry-Simulator: %1</translation>
    </message>
    <message>
        <source>The demo simulators could not listen on 127.0.0.1: %1</source>
        <translation>Die Demo-Simulatoren konnten nicht auf 127.0.0.1 lauschen: %1</translation>
    </message>
    <message>
        <source>LangGraph simulator: %1</source>
        <translation>LangGraph-Simulator: %1</translation>
    </message>
    <message>
        <source>Gemini simulator: %1</source>
        <translation>Gemini-Simulator: %1</translation>
    </message>
    <message>
        <source>MCP simulator: %1</source>
        <translation>MCP-Simulator: %1</translation>
    </message>
    <message>
        <source>Claude Managed Agents simulator: %1</source>
        <translation>Claude-Managed-Agents-Simulator: %1</translation>
    </message>
    <message>
        <source>OpenAI Agents simulator: %1</source>
        <translation>OpenAI-Agents-Simulator: %1</translation>
    </message>
</context>
<context>
    <name>Runwatch::DetailPane</name>
    <message>
        <source>Select a run to see its live output,
timeline and actions.</source>
        <translation>Wählen Sie einen Lauf, um seine Live-Ausgabe,
Zeitleiste und Aktionen zu sehen.</translation>
    </message>
    <message>
        <source>Run details</source>
        <translation>Laufdetails</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Resume following the run</source>
        <translation>Dem Lauf wieder folgen</translation>
    </message>
    <message>
        <source>Run output</source>
        <translation>Ausgabe des Laufs</translation>
    </message>
    <message>
        <source>&amp;Output</source>
        <translation>&amp;Ausgabe</translation>
    </message>
    <message>
        <source>&amp;Timeline</source>
        <translation>&amp;Zeitleiste</translation>
    </message>
    <message>
        <source>&amp;Raw events</source>
        <translation>&amp;Rohereignisse</translation>
    </message>
    <message>
        <source>&lt;h3&gt;%1 runs selected&lt;/h3&gt;&lt;p&gt;%2 active · %3 need input · %4 finished&lt;/p&gt;&lt;p&gt;Cancel and Delete apply to all of them.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;%1 Läufe ausgewählt&lt;/h3&gt;&lt;p&gt;%2 aktiv · %3 brauchen eine Eingabe · %4 beendet&lt;/p&gt;&lt;p&gt;Abbrechen und Löschen gelten für alle.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>(untitled run)</source>
        <translation>(Lauf ohne Titel)</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>started %1</source>
        <translation>gestartet %1</translation>
    </message>
    <message>
        <source>Server id: %1</source>
        <translation>Server-ID: %1</translation>
    </message>
    <message>
        <source>Retryable: yes — resuming may succeed.</source>
        <translation>Wiederholbar: ja – Fortsetzen kann gelingen.</translation>
    </message>
    <message>
        <source>Retryable: no.</source>
        <translation>Wiederholbar: nein.</translation>
    </message>
    <message>
        <source>Request id: %1</source>
        <translation>Anfrage-ID: %1</translation>
    </message>
    <message>
        <source>This run produced no output.</source>
        <translation>Dieser Lauf hat keine Ausgabe erzeugt.</translation>
    </message>
    <message>
        <source>Waiting for output…</source>
        <translation>Warte auf Ausgabe …</translation>
    </message>
    <message>
        <source>&amp;Timeline (%1)</source>
        <translation>&amp;Zeitleiste (%1)</translation>
    </message>
    <message>
        <source>The selected run: its status, output, timeline and what it waits for</source>
        <translation>Der ausgewählte Lauf: sein Status, seine Ausgabe, seine Zeitleiste und worauf er wartet</translation>
    </message>
    <message>
        <source>The answer of the run as it arrives</source>
        <translation>Die Antwort des Laufs, während sie eintrifft</translation>
    </message>
    <message>
        <source>Run progress</source>
        <translation>Fortschritt des Laufs</translation>
    </message>
    <message>
        <source>Estimated time left</source>
        <translation>Geschätzte Restzeit</translation>
    </message>
    <message>
        <source>Co&amp;nversation</source>
        <translation>U&amp;nterhaltung</translation>
    </message>
    <message>
        <source>follow-up to run %1</source>
        <translation>Folgenachricht zu Lauf %1</translation>
    </message>
    <message>
        <source>Expected to finish at %1</source>
        <translation>Voraussichtlich fertig um %1</translation>
    </message>
    <message>
        <source>Token usage and cost</source>
        <translation>Token-Verbrauch und Kosten</translation>
    </message>
    <message>
        <source>not reported</source>
        <translation>nicht gemeldet</translation>
    </message>
    <message>
        <source>Tokens: %1 input · %2 output</source>
        <translation>Tokens: %1 Eingabe · %2 Ausgabe</translation>
    </message>
    <message>
        <source>(%1 reasoning)</source>
        <translation>(%1 Reasoning)</translation>
    </message>
    <message>
        <source>cost %1</source>
        <translation>Kosten %1</translation>
    </message>
    <message>
        <source>no cost: the run names no model</source>
        <translation>keine Kosten: der Lauf nennt kein Modell</translation>
    </message>
    <message>
        <source>no price set for %1 (Settings › Prices…)</source>
        <translation>kein Preis für %1 gesetzt (Einstellungen › Preise…)</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>Nicht gespeichert</translation>
    </message>
    <message>
        <source>Not saved: %1. What arrived is kept in this window and saved as soon as the run store can be written; closing Runwatch now would lose it.</source>
        <translation>Nicht gespeichert: %1. Was angekommen ist, bleibt in diesem Fenster und wird gespeichert, sobald der Laufspeicher wieder beschrieben werden kann; wird Runwatch jetzt geschlossen, geht es verloren.</translation>
    </message>
    <message>
        <source>&lt;p&gt;They wait for the same request: Respond (Ctrl+I) answers all of them in one step.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Sie warten auf dieselbe Anfrage: Antworten (Strg+I) beantwortet alle in einem Schritt.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>Runwatch::ErrorObject</name>
    <message>
        <source>The server reported an error without a message.</source>
        <translation>Der Server hat einen Fehler ohne Meldung gemeldet.</translation>
    </message>
</context>
<context>
    <name>Runwatch::FilterBar</name>
    <message>
        <source>Search runs</source>
        <translation>Läufe suchen</translation>
    </message>
    <message>
        <source>Connection filter</source>
        <translation>Verbindungsfilter</translation>
    </message>
    <message>
        <source>All connections</source>
        <translation>Alle Verbindungen</translation>
    </message>
    <message>
        <source>Filters</source>
        <translation>Filter</translation>
    </message>
    <message>
        <source>Status chips with live counts (Alt+1, Alt+2, …), a search field (Ctrl+F) and a connection filter</source>
        <translation>Status-Chips mit aktuellen Zahlen (Alt+1, Alt+2, …), ein Suchfeld (Strg+F) und ein Verbindungsfilter</translation>
    </message>
    <message>
        <source>Shows the runs of one connection only</source>
        <translation>Zeigt nur die Läufe einer Verbindung</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n run(s)</source>
        <comment>filter chip</comment>
        <translation>
            <numerusform>%1: %n Lauf</numerusform>
            <numerusform>%1: %n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>Filter chip: lists only these runs (%1)</source>
        <translation>Filter-Chip: listet nur diese Läufe (%1)</translation>
    </message>
    <message>
        <source>Show only the runs of “%1” (%2)</source>
        <translation>Nur die Läufe unter „%1“ anzeigen (%2)</translation>
    </message>
    <message>
        <source>Filter chip: lists only the live runs without progress for too long (%1)</source>
        <translation>Filter-Chip: zeigt nur die laufenden Läufe, die zu lange keinen Fortschritt machen (%1)</translation>
    </message>
    <message>
        <source>Show only the live runs that made no progress for several times their expected duration (%1)</source>
        <translation>Nur die laufenden Läufe zeigen, die seit einem Vielfachen ihrer erwarteten Dauer keinen Fortschritt gemacht haben (%1)</translation>
    </message>
    <message>
        <source>Search runs: words, &quot;a phrase&quot;, status:failed since:7d  (Ctrl+F)</source>
        <translation>Läufe suchen: Wörter, &quot;eine Phrase&quot;, status:failed since:7d  (Strg+F)</translation>
    </message>
    <message>
        <source>Filters the list by title, id or connection, and by anything in a run&apos;s prompt, answer, reasoning, tool calls or error; Esc clears it</source>
        <translation>Filtert die Liste nach Titel, ID oder Verbindung und nach allem im Prompt, in der Antwort, im Reasoning, in Tool-Aufrufen oder im Fehler eines Laufs; Esc leert das Feld</translation>
    </message>
    <message>
        <source>Words and &quot;exact phrases&quot; are found in titles, prompts, answers, reasoning, tool calls and errors; word* finds every word it begins.
Filters: status:failed, backend:a2a, connection:NAME, model:M, since:7d, until:2026-11-01 (commas for several).
Enter searches again.</source>
        <translation>Wörter und &quot;exakte Phrasen&quot; werden in Titeln, Prompts, Antworten, Reasoning, Tool-Aufrufen und Fehlern gefunden; wort* findet jedes Wort, das so beginnt.
Filter: status:failed, backend:a2a, connection:NAME, model:M, since:7d, until:2026-11-01 (Kommas für mehrere).
Eingabe sucht erneut.</translation>
    </message>
    <message>
        <source>More than %1 runs hold these words; the newest %1 are listed. Enter searches again.</source>
        <translation>Mehr als %1 Läufe enthalten diese Wörter; die neuesten %1 werden angezeigt. Eingabe sucht erneut.</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) hold these words. Enter searches again.</source>
        <translation>
            <numerusform>%n Lauf enthält diese Wörter. Eingabe sucht erneut.</numerusform>
            <numerusform>%n Läufe enthalten diese Wörter. Eingabe sucht erneut.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::InputPanel</name>
    <message>
        <source>The run asks a question</source>
        <translation>Der Lauf stellt eine Frage</translation>
    </message>
    <message>
        <source>The run asks for approval</source>
        <translation>Der Lauf bittet um Freigabe</translation>
    </message>
    <message>
        <source>The run asks you to choose</source>
        <translation>Der Lauf bittet Sie um eine Auswahl</translation>
    </message>
    <message>
        <source>The run waits for a tool result</source>
        <translation>Der Lauf wartet auf ein Tool-Ergebnis</translation>
    </message>
    <message>
        <source>The run needs credentials</source>
        <translation>Der Lauf braucht Zugangsdaten</translation>
    </message>
    <message>
        <source>The run is waiting for a timer</source>
        <translation>Der Lauf wartet auf einen Timer</translation>
    </message>
    <message>
        <source>The run waits for a callback</source>
        <translation>Der Lauf wartet auf einen Callback</translation>
    </message>
    <message>
        <source>Deadline reached</source>
        <translation>Frist erreicht</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <source>Input required</source>
        <translation>Eingabe nötig</translation>
    </message>
    <message>
        <source>Time left</source>
        <translation>Verbleibende Zeit</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Frage</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>Antwort</translation>
    </message>
    <message>
        <source>Type your answer… (Ctrl+Enter sends)</source>
        <translation>Antwort eingeben … (Strg+Eingabe sendet)</translation>
    </message>
    <message>
        <source>&amp;Send</source>
        <translation>&amp;Senden</translation>
    </message>
    <message>
        <source>Send answer</source>
        <translation>Antwort senden</translation>
    </message>
    <message>
        <source>Comment</source>
        <translation>Kommentar</translation>
    </message>
    <message>
        <source>Comment (optional)</source>
        <translation>Kommentar (optional)</translation>
    </message>
    <message>
        <source>&amp;Approve</source>
        <translation>&amp;Freigeben</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Re&amp;ject</source>
        <translation>A&amp;blehnen</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>Optionen</translation>
    </message>
    <message>
        <source>&amp;Choose</source>
        <translation>&amp;Wählen</translation>
    </message>
    <message>
        <source>Choose the selected option</source>
        <translation>Die ausgewählte Option wählen</translation>
    </message>
    <message>
        <source>Callback URL</source>
        <translation>Callback-URL</translation>
    </message>
    <message>
        <source>Copy &amp;URL</source>
        <translation>&amp;URL kopieren</translation>
    </message>
    <message>
        <source>Copy the callback URL</source>
        <translation>Die Callback-URL kopieren</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
    <message>
        <source>Send every answer</source>
        <translation>Alle Antworten senden</translation>
    </message>
    <message>
        <source>(no question text)</source>
        <translation>(kein Fragetext)</translation>
    </message>
    <message>
        <source>&amp;Send all %1</source>
        <translation>Alle %1 &amp;senden</translation>
    </message>
    <message>
        <source>The run resumes by itself at %1; there is nothing to answer.</source>
        <translation>Der Lauf setzt sich um %1 von selbst fort; es gibt nichts zu beantworten.</translation>
    </message>
    <message>
        <source>The run resumes by itself; there is nothing to answer.</source>
        <translation>Der Lauf setzt sich von selbst fort; es gibt nichts zu beantworten.</translation>
    </message>
    <message>
        <source>(the server did not say)</source>
        <translation>(vom Server nicht genannt)</translation>
    </message>
    <message>
        <source>Waiting for the callback… The run goes on when the external system calls this URL; there is nothing to answer here.</source>
        <translation>Warte auf den Callback … Der Lauf geht weiter, wenn das externe System diese URL aufruft; hier gibt es nichts zu beantworten.</translation>
    </message>
    <message>
        <source>This connection cannot send answers; respond where the run was started.</source>
        <translation>Diese Verbindung kann keine Antworten senden; antworten Sie dort, wo der Lauf gestartet wurde.</translation>
    </message>
    <message>
        <source>Respond panel: the run waits for you; answer, approve or choose here</source>
        <translation>Antwortbereich: Der Lauf wartet auf Sie; antworten, freigeben oder wählen Sie hier</translation>
    </message>
    <message>
        <source>Why the answer cannot be sent</source>
        <translation>Warum die Antwort nicht gesendet werden kann</translation>
    </message>
    <message>
        <source>Send the form</source>
        <translation>Formular senden</translation>
    </message>
    <message>
        <source>&amp;Open and accept…</source>
        <translation>Ö&amp;ffnen und annehmen…</translation>
    </message>
    <message>
        <source>Accept opens this address in your browser; Reject declines.</source>
        <translation>Annehmen öffnet diese Adresse in Ihrem Browser; Ablehnen lehnt ab.</translation>
    </message>
    <message>
        <source>Open address</source>
        <translation>Adresse öffnen</translation>
    </message>
    <message>
        <source>Open %1 in your browser and tell the server you accept?</source>
        <translation>%1 in Ihrem Browser öffnen und dem Server mitteilen, dass Sie annehmen?</translation>
    </message>
    <message>
        <source>&amp;Decline</source>
        <translation>A&amp;blehnen</translation>
    </message>
    <message>
        <source>Decline the request</source>
        <translation>Die Anfrage ablehnen</translation>
    </message>
    <message>
        <source>Tell the server you refuse to give this information</source>
        <translation>Dem Server mitteilen, dass Sie diese Angaben verweigern</translation>
    </message>
    <message>
        <source>Dis&amp;miss</source>
        <translation>&amp;Verwerfen</translation>
    </message>
    <message>
        <source>Dismiss the request without answering</source>
        <translation>Die Anfrage ohne Antwort verwerfen</translation>
    </message>
    <message>
        <source>Close the request without answering; this does not cancel the run, the server decides what happens next</source>
        <translation>Die Anfrage ohne Antwort schließen; der Lauf wird dadurch nicht abgebrochen, der Server entscheidet, wie es weitergeht</translation>
    </message>
</context>
<context>
    <name>Runwatch::KeychainKeyStore</name>
    <message>
        <source>plain-text file %1</source>
        <translation>Klartextdatei %1</translation>
    </message>
    <message>
        <source>system keychain</source>
        <translation>Schlüsselbund des Systems</translation>
    </message>
</context>
<context>
    <name>Runwatch::MainWindow</name>
    <message>
        <source>Actions</source>
        <translation>Aktionen</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Connections…</source>
        <translation>&amp;Verbindungen …</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Verbindungen</translation>
    </message>
    <message>
        <source>Add, edit and test connections (Ctrl+Shift+O)</source>
        <translation>Verbindungen hinzufügen, bearbeiten und testen (Strg+Umschalt+O)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Search Runs</source>
        <translation>Läufe &amp;suchen</translation>
    </message>
    <message>
        <source>Run &amp;List</source>
        <translation>Lauf&amp;liste</translation>
    </message>
    <message>
        <source>&amp;Output</source>
        <translation>&amp;Ausgabe</translation>
    </message>
    <message>
        <source>&amp;Raw Event Log</source>
        <translation>&amp;Rohereignis-Protokoll</translation>
    </message>
    <message>
        <source>Record and show the typed events of each run (for debugging)</source>
        <translation>Die typisierten Ereignisse jedes Laufs aufzeichnen und zeigen (zur Fehlersuche)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Einstellungen</translation>
    </message>
    <message>
        <source>Desktop &amp;Notifications</source>
        <translation>Desktop-&amp;Benachrichtigungen</translation>
    </message>
    <message>
        <source>Notify when a run completes, fails or needs input</source>
        <translation>Benachrichtigen, wenn ein Lauf fertig wird, fehlschlägt oder eine Eingabe braucht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Runwatch</source>
        <translation>&amp;Über Runwatch</translation>
    </message>
    <message>
        <source>About Runwatch</source>
        <translation>Über Runwatch</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Runwatch %1&lt;/h3&gt;&lt;p&gt;A desktop cockpit for long-running AI background runs.&lt;/p&gt;&lt;p&gt;Licensed under the GNU GPL version 3 or later.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Runwatch %1&lt;/h3&gt;&lt;p&gt;Ein Desktop-Cockpit für lang laufende KI-Hintergrundläufe.&lt;/p&gt;&lt;p&gt;Lizenziert unter der GNU GPL Version 3 oder später.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>No connections yet</source>
        <translation>Noch keine Verbindungen</translation>
    </message>
    <message>
        <source>Add one with File ▸ Connections… (Ctrl+Shift+O),
or start Runwatch with --demo to try it out.</source>
        <translation>Legen Sie eine an mit Datei ▸ Verbindungen … (Strg+Umschalt+O),
oder starten Sie Runwatch mit --demo zum Ausprobieren.</translation>
    </message>
    <message>
        <source>No runs yet</source>
        <translation>Noch keine Läufe</translation>
    </message>
    <message>
        <source>Start one with New Run (Ctrl+N).</source>
        <translation>Starten Sie einen mit Neuer Lauf (Strg+N).</translation>
    </message>
    <message>
        <source>No runs match</source>
        <translation>Keine passenden Läufe</translation>
    </message>
    <message>
        <source>Clear the search, or pick another status or connection.</source>
        <translation>Leeren Sie die Suche oder wählen Sie einen anderen Status oder eine andere Verbindung.</translation>
    </message>
    <message>
        <source>&amp;Browse Runs on Connection…</source>
        <translation>Läufe einer Verbindung &amp;durchsuchen…</translation>
    </message>
    <message>
        <source>List the runs the service has, started here or elsewhere, and attach to them (Ctrl+Shift+B)</source>
        <translation>Die Läufe des Dienstes auflisten, hier oder anderswo gestartet, und sich an sie anhängen (Strg+Umschalt+B)</translation>
    </message>
    <message>
        <source>&amp;Prices…</source>
        <translation>&amp;Preise…</translation>
    </message>
    <message>
        <source>Set the price of each model&apos;s tokens, to show what runs cost</source>
        <translation>Den Preis der Tokens jedes Modells festlegen, um zu zeigen, was Läufe kosten</translation>
    </message>
    <message>
        <source>No stuck runs</source>
        <translation>Keine festgefahrenen Läufe</translation>
    </message>
    <message>
        <source>A live run is listed here when it makes no progress for several times
its expected duration (the service&apos;s estimate, or the median of like runs).</source>
        <translation>Ein laufender Lauf erscheint hier, wenn er ein Vielfaches seiner erwarteten Dauer
keinen Fortschritt macht (die Schätzung des Dienstes oder der Median gleichartiger Läufe).</translation>
    </message>
    <message>
        <source>&amp;Stuck Runs…</source>
        <translation>&amp;Festgefahrene Läufe…</translation>
    </message>
    <message>
        <source>Set when a live run without progress counts as stuck</source>
        <translation>Festlegen, wann ein laufender Lauf ohne Fortschritt als festgefahren gilt</translation>
    </message>
    <message>
        <source>The stuck rule could not be saved: %1</source>
        <translation>Die Regel für festgefahrene Läufe ließ sich nicht speichern: %1</translation>
    </message>
    <message>
        <source>Runs not saved</source>
        <translation>Läufe nicht gespeichert</translation>
    </message>
    <message>
        <source>The latest output of some runs could not be saved to %1: %2.

If you quit now, it is lost. Free disk space or close what holds the file, then quit again.</source>
        <translation>Die neueste Ausgabe einiger Läufe konnte nicht in %1 gespeichert werden: %2.

Wenn Sie jetzt beenden, geht sie verloren. Geben Sie Speicherplatz frei oder schließen Sie, was die Datei belegt, und beenden Sie dann erneut.</translation>
    </message>
    <message>
        <source>Quit Anyway</source>
        <translation>Trotzdem beenden</translation>
    </message>
    <message>
        <source>Keep Runwatch Open</source>
        <translation>Runwatch geöffnet lassen</translation>
    </message>
    <message>
        <source>&amp;Command Palette…</source>
        <translation>&amp;Befehlspalette…</translation>
    </message>
    <message>
        <source>Find any command or run by typing</source>
        <translation>Jeden Befehl und jeden Lauf durch Tippen finden</translation>
    </message>
    <message>
        <source>Run St&amp;ore…</source>
        <translation>&amp;Laufdatenbank…</translation>
    </message>
    <message>
        <source>Keep runs on this computer or in a team&apos;s PostgreSQL database</source>
        <translation>Läufe auf diesem Computer oder in der PostgreSQL-Datenbank eines Teams aufbewahren</translation>
    </message>
    <message>
        <source>Run store saved (%1): Runwatch opens it when it starts next.</source>
        <translation>Laufdatenbank gespeichert (%1): Runwatch öffnet sie beim nächsten Start.</translation>
    </message>
</context>
<context>
    <name>Runwatch::NewRunDialog</name>
    <message>
        <source>New Run</source>
        <translation>Neuer Lauf</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>Neuer Lauf</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>&amp;Connection:</source>
        <translation>&amp;Verbindung:</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>&amp;Agent:</source>
        <translation>&amp;Agent:</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>What should the run do?</source>
        <translation>Was soll der Lauf tun?</translation>
    </message>
    <message>
        <source>&amp;Prompt:</source>
        <translation>&amp;Prompt:</translation>
    </message>
    <message>
        <source>&amp;Stream output while the run works</source>
        <translation>Ausgabe &amp;streamen, während der Lauf arbeitet</translation>
    </message>
    <message>
        <source>Stream output</source>
        <translation>Ausgabe streamen</translation>
    </message>
    <message>
        <source>Off: the run is started and then polled; output appears when it is ready.</source>
        <translation>Aus: Der Lauf wird gestartet und dann abgefragt; die Ausgabe erscheint, wenn sie fertig ist.</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>No connection yet: add one with Connections… first.</source>
        <translation>Noch keine Verbindung: Legen Sie zuerst eine unter Verbindungen … an.</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>The agent&apos;s own</source>
        <translation>Das des Agenten</translation>
    </message>
    <message>
        <source>Loading the service&apos;s agents…</source>
        <translation>Die Agenten des Dienstes werden geladen…</translation>
    </message>
    <message>
        <source>The service&apos;s agents could not be read: %1</source>
        <translation>Die Agenten des Dienstes konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The service has no agents: create one there first.</source>
        <translation>Der Dienst hat keine Agenten: Legen Sie dort zuerst einen an.</translation>
    </message>
    <message>
        <source>Structured input (JSON)</source>
        <translation>Strukturierte Eingabe (JSON)</translation>
    </message>
    <message>
        <source>Optional: JSON sent as the run&apos;s input, e.g. {&quot;ticket&quot;: 4711}</source>
        <translation>Optional: JSON, das als Eingabe des Laufs gesendet wird, z. B. {&quot;ticket&quot;: 4711}</translation>
    </message>
    <message>
        <source>&amp;Input (JSON):</source>
        <translation>&amp;Eingabe (JSON):</translation>
    </message>
    <message>
        <source>Input (JSON): %1</source>
        <translation>Eingabe (JSON): %1</translation>
    </message>
    <message>
        <source>%1 (v%2)</source>
        <translation>%1 (v%2)</translation>
    </message>
    <message>
        <source>No agent (a model)</source>
        <translation>Kein Agent (ein Modell)</translation>
    </message>
    <message>
        <source>No agent (model %1)</source>
        <translation>Kein Agent (Modell %1)</translation>
    </message>
    <message>
        <source>The service has no agents: runs go to the model.</source>
        <translation>Der Dienst hat keine Agenten: Läufe gehen an das Modell.</translation>
    </message>
    <message>
        <source>&amp;Runs on:</source>
        <translation>&amp;Läuft auf:</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>I&amp;nput:</source>
        <translation>Ei&amp;ngabe:</translation>
    </message>
    <message>
        <source>Optional: a title for the run</source>
        <translation>Optional: ein Titel für den Lauf</translation>
    </message>
    <message>
        <source>The tool&apos;s input: %1</source>
        <translation>Eingabe des Tools: %1</translation>
    </message>
</context>
<context>
    <name>Runwatch::Notifier</name>
    <message>
        <source>Run looks stuck</source>
        <translation>Lauf scheint festzuhängen</translation>
    </message>
    <message>
        <source>Deadline approaching</source>
        <translation>Frist naht</translation>
    </message>
    <message>
        <source>Deadline reached: cancelling</source>
        <translation>Frist erreicht: wird abgebrochen</translation>
    </message>
    <message>
        <source>Deadline reached</source>
        <translation>Frist erreicht</translation>
    </message>
    <message>
        <source>Run completed</source>
        <translation>Lauf abgeschlossen</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>needs input</source>
        <translation>braucht eine Eingabe</translation>
    </message>
    <message>
        <source>needs approval</source>
        <translation>braucht eine Freigabe</translation>
    </message>
    <message>
        <source>Run expires in %1 unless answered</source>
        <translation>Lauf verfällt in %1, wenn er nicht beantwortet wird</translation>
    </message>
    <message>
        <source>Show run</source>
        <translation>Lauf anzeigen</translation>
    </message>
    <message>
        <source>Follow-up to “%1” completed</source>
        <translation>Folgenachricht zu „%1“ abgeschlossen</translation>
    </message>
    <message>
        <source>Follow-up to “%1” %2</source>
        <translation>Folgenachricht zu „%1“: %2</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>Antworten</translation>
    </message>
    <message>
        <source>Answer…</source>
        <translation>Beantworten …</translation>
    </message>
    <message>
        <source>Answer the run…</source>
        <translation>Dem Lauf antworten …</translation>
    </message>
</context>
<context>
    <name>Runwatch::OutputView</name>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>&amp;Alles auswählen</translation>
    </message>
</context>
<context>
    <name>Runwatch::PricesDialog</name>
    <message>
        <source>Prices</source>
        <translation>Preise</translation>
    </message>
    <message>
        <source>The price of a million input and output tokens for each model, to show what runs cost. Runwatch ships no prices: list prices change and contracts differ, so enter yours. A price for “gpt-4o” also covers the snapshots the service reports, such as “gpt-4o-2024-08-06”. Reasoning tokens are billed as output tokens.</source>
        <translation>Der Preis von einer Million Eingabe- und Ausgabe-Tokens je Modell, um zu zeigen, was Läufe kosten. Runwatch bringt keine Preise mit: Listenpreise ändern sich und Verträge unterscheiden sich, also tragen Sie Ihre ein. Ein Preis für „gpt-4o“ gilt auch für die Snapshots, die der Dienst meldet, etwa „gpt-4o-2024-08-06“. Reasoning-Tokens werden als Ausgabe-Tokens berechnet.</translation>
    </message>
    <message>
        <source>e.g. USD</source>
        <translation>z. B. EUR</translation>
    </message>
    <message>
        <source>A label shown after every cost; nothing is converted</source>
        <translation>Eine Bezeichnung hinter jedem Betrag; es wird nichts umgerechnet</translation>
    </message>
    <message>
        <source>&amp;Currency:</source>
        <translation>&amp;Währung:</translation>
    </message>
    <message>
        <source>Prices per model</source>
        <translation>Preise je Modell</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Input per 1M tokens</source>
        <translation>Eingabe je 1 Mio. Tokens</translation>
    </message>
    <message>
        <source>Output per 1M tokens</source>
        <translation>Ausgabe je 1 Mio. Tokens</translation>
    </message>
    <message>
        <source>&amp;Add Model</source>
        <translation>Modell &amp;hinzufügen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Row %1: enter the model&apos;s name.</source>
        <translation>Zeile %1: Geben Sie den Namen des Modells ein.</translation>
    </message>
    <message>
        <source>Row %1: %2 is listed twice.</source>
        <translation>Zeile %1: %2 steht zweimal in der Liste.</translation>
    </message>
    <message>
        <source>Row %1: enter both prices of %2 (0 for free).</source>
        <translation>Zeile %1: Geben Sie beide Preise von %2 ein (0 für kostenlos).</translation>
    </message>
    <message>
        <source>Row %1: the prices of %2 must be numbers.</source>
        <translation>Zeile %1: Die Preise von %2 müssen Zahlen sein.</translation>
    </message>
    <message>
        <source>Row %1: the prices of %2 cannot be negative.</source>
        <translation>Zeile %1: Die Preise von %2 dürfen nicht negativ sein.</translation>
    </message>
    <message>
        <source>The prices could not be saved to the run store.</source>
        <translation>Die Preise konnten nicht in der Laufdatenbank gespeichert werden.</translation>
    </message>
</context>
<context>
    <name>Runwatch::RawLogView</name>
    <message>
        <source>Raw event log</source>
        <translation>Rohereignis-Protokoll</translation>
    </message>
    <message>
        <source>No events recorded for this run yet.</source>
        <translation>Für diesen Lauf sind noch keine Ereignisse aufgezeichnet.</translation>
    </message>
    <message>
        <source>The raw event log is off. Turn it on with View ▸ Raw Event Log.</source>
        <translation>Das Rohereignis-Protokoll ist aus. Schalten Sie es mit Ansicht ▸ Rohereignis-Protokoll ein.</translation>
    </message>
    <message>
        <source>Every event of the run as the connector typed it, for debugging</source>
        <translation>Jedes Ereignis des Laufs, wie der Konnektor es typisiert hat, zur Fehlersuche</translation>
    </message>
</context>
<context>
    <name>Runwatch::RequestAuth</name>
    <message>
        <source>&quot;%1&quot; is not a valid header name for the key.</source>
        <translation>„%1“ ist kein gültiger Header-Name für den Schlüssel.</translation>
    </message>
    <message>
        <source>The key contains a line break or another control character.</source>
        <translation>Der Schlüssel enthält einen Zeilenumbruch oder ein anderes Steuerzeichen.</translation>
    </message>
    <message>
        <source>Not sending the key of connection &quot;%1&quot; to %2: it was given for %3. Point a connection at %2 to use a key there.</source>
        <translation>Der Schlüssel der Verbindung „%1“ wird nicht an %2 gesendet: Er wurde für %3 angegeben. Richten Sie eine Verbindung auf %2, um dort einen Schlüssel zu verwenden.</translation>
    </message>
</context>
<context>
    <name>Runwatch::RunHousekeeping</name>
    <message>
        <source>&amp;Export…</source>
        <translation>&amp;Exportieren …</translation>
    </message>
    <message>
        <source>Save the selected run as Markdown or JSON (Ctrl+E)</source>
        <translation>Den ausgewählten Lauf als Markdown oder JSON speichern (Strg+E)</translation>
    </message>
    <message>
        <source>Save the selected run as Markdown or JSON</source>
        <translation>Den ausgewählten Lauf als Markdown oder JSON speichern</translation>
    </message>
    <message>
        <source>Remove Finished Runs &amp;Older Than…</source>
        <translation>Beendete Läufe entfernen, &amp;älter als …</translation>
    </message>
    <message>
        <source>Delete finished runs older than a number of days from this computer</source>
        <translation>Beendete Läufe, die älter als eine Anzahl Tage sind, von diesem Computer löschen</translation>
    </message>
    <message>
        <source>&amp;Keep Finished Runs…</source>
        <translation>Beendete Läufe &amp;aufbewahren …</translation>
    </message>
    <message>
        <source>How many days finished runs are kept; older ones are removed at startup</source>
        <translation>Wie viele Tage beendete Läufe aufbewahrt werden; ältere werden beim Start entfernt</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Export Run</source>
        <translation>Lauf exportieren</translation>
    </message>
    <message>
        <source>The run&apos;s output could not be read from the run store.</source>
        <translation>Die Ausgabe des Laufs konnte nicht aus der Laufdatenbank gelesen werden.</translation>
    </message>
    <message>
        <source>Export Failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message>
        <source>The run could not be exported to %1:
%2</source>
        <translation>Der Lauf konnte nicht nach %1 exportiert werden:
%2</translation>
    </message>
    <message>
        <source>Exported to %1</source>
        <translation>Exportiert nach %1</translation>
    </message>
    <message>
        <source>Remove Finished Runs</source>
        <translation>Beendete Läufe entfernen</translation>
    </message>
    <message>
        <source>Remove finished runs older than this many days:</source>
        <translation>Beendete Läufe entfernen, die älter sind als so viele Tage:</translation>
    </message>
    <message numerus="yes">
        <source>No finished run is older than %n day(s).</source>
        <translation>
            <numerusform>Kein beendeter Lauf ist älter als %n Tag.</numerusform>
            <numerusform>Kein beendeter Lauf ist älter als %n Tage.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Remove %n finished run(s) older than %1 day(s)? They are deleted from this computer only; servers keep their copies.</source>
        <translation>
            <numerusform>%n beendeten Lauf entfernen, der älter als %1 Tag(e) ist? Er wird nur von diesem Computer gelöscht; Server behalten ihre Kopien.</numerusform>
            <numerusform>%n beendete Läufe entfernen, die älter als %1 Tag(e) sind? Sie werden nur von diesem Computer gelöscht; Server behalten ihre Kopien.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n finished run(s).</source>
        <translation>
            <numerusform>%n beendeter Lauf entfernt.</numerusform>
            <numerusform>%n beendete Läufe entfernt.</numerusform>
        </translation>
    </message>
    <message>
        <source>Keep Finished Runs</source>
        <translation>Beendete Läufe aufbewahren</translation>
    </message>
    <message>
        <source>Keep finished runs for this many days (0 = forever).
Older ones are removed when Runwatch starts.</source>
        <translation>Beendete Läufe so viele Tage aufbewahren (0 = für immer).
Ältere werden beim Start von Runwatch entfernt.</translation>
    </message>
    <message>
        <source>Finished runs are kept forever.</source>
        <translation>Beendete Läufe werden für immer aufbewahrt.</translation>
    </message>
    <message numerus="yes">
        <source>Finished runs are kept for %n day(s).</source>
        <translation>
            <numerusform>Beendete Läufe werden %n Tag aufbewahrt.</numerusform>
            <numerusform>Beendete Läufe werden %n Tage aufbewahrt.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::RunListModel</name>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>Server id %1</source>
        <translation>Server-ID %1</translation>
    </message>
    <message>
        <source>Status badge</source>
        <translation>Statusanzeige</translation>
    </message>
    <message>
        <source>Follow-up to “%1” (run %2)</source>
        <translation>Folgenachricht zu „%1“ (Lauf %2)</translation>
    </message>
    <message>
        <source>Follow-up to run %1</source>
        <translation>Folgenachricht zu Lauf %1</translation>
    </message>
    <message>
        <source>%1 input tokens</source>
        <translation>%1 Eingabe-Tokens</translation>
    </message>
    <message>
        <source>The service reported no input tokens for this run</source>
        <translation>Der Dienst hat für diesen Lauf keine Eingabe-Tokens gemeldet</translation>
    </message>
    <message>
        <source>The service reported no output tokens for this run</source>
        <translation>Der Dienst hat für diesen Lauf keine Ausgabe-Tokens gemeldet</translation>
    </message>
    <message>
        <source>%1 output tokens</source>
        <translation>%1 Ausgabe-Tokens</translation>
    </message>
    <message>
        <source>%1 of them reasoning tokens</source>
        <translation>%1 davon Reasoning-Tokens</translation>
    </message>
    <message>
        <source>No cost: the service reported no token usage for this run</source>
        <translation>Keine Kosten: der Dienst hat für diesen Lauf keinen Token-Verbrauch gemeldet</translation>
    </message>
    <message>
        <source>No cost: the run names no model</source>
        <translation>Keine Kosten: der Lauf nennt kein Modell</translation>
    </message>
    <message>
        <source>No price set for model %1 — Settings › Prices…</source>
        <translation>Kein Preis für das Modell %1 gesetzt — Einstellungen › Preise…</translation>
    </message>
    <message>
        <source>%1 at the price set for %2 (input and output tokens)</source>
        <translation>%1 zum für %2 gesetzten Preis (Eingabe- und Ausgabe-Tokens)</translation>
    </message>
    <message>
        <source>Stuck</source>
        <translation>Hängt fest</translation>
    </message>
    <message>
        <source>Over deadline</source>
        <translation>Frist überschritten</translation>
    </message>
    <message>
        <source>Stuck: no progress since %1</source>
        <translation>Hängt fest: kein Fortschritt seit %1</translation>
    </message>
    <message>
        <source>Expected to take about %1</source>
        <translation>Erwartete Dauer etwa %1</translation>
    </message>
</context>
<context>
    <name>Runwatch::RunStoreDialog</name>
    <message>
        <source>Run Store</source>
        <translation>Laufdatenbank</translation>
    </message>
    <message>
        <source>This Runwatch was started with %1 = %2, which wins over the choice made here. What you save is used when Runwatch starts without it.</source>
        <translation>Dieses Runwatch wurde mit %1 = %2 gestartet; das hat Vorrang vor der Wahl hier. Was Sie speichern, gilt, wenn Runwatch ohne diese Angabe startet.</translation>
    </message>
    <message>
        <source>Runs, their output and the saved connections (never their keys) are kept in the run store: a file on this computer, or a team&apos;s PostgreSQL database that every member&apos;s Runwatch and runwatch-cli open together.</source>
        <translation>Läufe, ihre Ausgaben und die gespeicherten Verbindungen (nie deren Schlüssel) liegen in der Laufdatenbank: einer Datei auf diesem Computer oder der PostgreSQL-Datenbank eines Teams, die Runwatch und runwatch-cli aller Mitglieder gemeinsam öffnen.</translation>
    </message>
    <message>
        <source>&amp;This computer</source>
        <translation>&amp;Dieser Computer</translation>
    </message>
    <message>
        <source>Empty: the default file, %1</source>
        <translation>Leer: die Standarddatei, %1</translation>
    </message>
    <message>
        <source>Run store file</source>
        <translation>Datei der Laufdatenbank</translation>
    </message>
    <message>
        <source>&amp;File:</source>
        <translation>Date&amp;i:</translation>
    </message>
    <message>
        <source>Team &amp;database (PostgreSQL)</source>
        <translation>&amp;Team-Datenbank (PostgreSQL)</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation>&amp;Host:</translation>
    </message>
    <message>
        <source>Data&amp;base:</source>
        <translation>Daten&amp;bank:</translation>
    </message>
    <message>
        <source>&amp;User:</source>
        <translation>Ben&amp;utzer:</translation>
    </message>
    <message>
        <source>Kept in the OS keychain; empty: keep the saved one or use ~/.pgpass</source>
        <translation>Im Schlüsselbund des Systems; leer: das gespeicherte behalten oder ~/.pgpass verwenden</translation>
    </message>
    <message>
        <source>No keychain: use ~/.pgpass, PGPASSWORD or a service file</source>
        <translation>Kein Schlüsselbund: ~/.pgpass, PGPASSWORD oder eine Service-Datei verwenden</translation>
    </message>
    <message>
        <source>&amp;Password:</source>
        <translation>&amp;Passwort:</translation>
    </message>
    <message>
        <source>libpq&apos;s default (encrypted if the server offers it, not checked)</source>
        <translation>Standard von libpq (verschlüsselt, wenn der Server es anbietet, ungeprüft)</translation>
    </message>
    <message>
        <source>disable: never encrypted</source>
        <translation>disable: nie verschlüsselt</translation>
    </message>
    <message>
        <source>require: encrypted, server not checked</source>
        <translation>require: verschlüsselt, Server ungeprüft</translation>
    </message>
    <message>
        <source>verify-ca: encrypted, certificate checked</source>
        <translation>verify-ca: verschlüsselt, Zertifikat geprüft</translation>
    </message>
    <message>
        <source>verify-full: encrypted, certificate and host name checked</source>
        <translation>verify-full: verschlüsselt, Zertifikat und Hostname geprüft</translation>
    </message>
    <message>
        <source>The CA certificate (PEM) the server&apos;s certificate is issued by</source>
        <translation>Das CA-Zertifikat (PEM), das das Zertifikat des Servers ausgestellt hat</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>Du&amp;rchsuchen…</translation>
    </message>
    <message>
        <source>CA Certificate</source>
        <translation>CA-Zertifikat</translation>
    </message>
    <message>
        <source>Certificates (*.pem *.crt);;All files (*)</source>
        <translation>Zertifikate (*.pem *.crt);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>&amp;CA file:</source>
        <translation>&amp;CA-Datei:</translation>
    </message>
    <message>
        <source>Optional: an entry of ~/.pg_service.conf or PGSERVICEFILE</source>
        <translation>Optional: ein Eintrag aus ~/.pg_service.conf oder PGSERVICEFILE</translation>
    </message>
    <message>
        <source>&amp;Service:</source>
        <translation>&amp;Service:</translation>
    </message>
    <message>
        <source>T&amp;est</source>
        <translation>T&amp;esten</translation>
    </message>
    <message>
        <source>Connect and read the store&apos;s version, without changing anything</source>
        <translation>Verbinden und die Version der Laufdatenbank lesen, ohne etwas zu ändern</translation>
    </message>
    <message>
        <source>Runwatch opens the chosen store when it starts next.</source>
        <translation>Runwatch öffnet die gewählte Laufdatenbank beim nächsten Start.</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Verbinde…</translation>
    </message>
    <message>
        <source>Saving the password in the OS keychain…</source>
        <translation>Passwort wird im Schlüsselbund des Systems gespeichert…</translation>
    </message>
    <message>
        <source>The password could not be saved in the OS keychain: %1. Nothing was changed; leave the password empty to use ~/.pgpass or PGPASSWORD instead.</source>
        <translation>Das Passwort konnte nicht im Schlüsselbund des Systems gespeichert werden: %1. Nichts wurde geändert; lassen Sie das Passwort leer, um stattdessen ~/.pgpass oder PGPASSWORD zu verwenden.</translation>
    </message>
    <message>
        <source>P&amp;ort:</source>
        <translation>P&amp;ort:</translation>
    </message>
    <message>
        <source>T&amp;LS:</source>
        <translation>T&amp;LS:</translation>
    </message>
</context>
<context>
    <name>Runwatch::RunTableView</name>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>The list of runs. Type to search it; Esc clears the search. The status column shows a badge with an icon and a text for each run.</source>
        <translation>Die Liste der Läufe. Tippen Sie, um sie zu durchsuchen; Esc leert die Suche. Die Statusspalte zeigt für jeden Lauf eine Anzeige mit Symbol und Text.</translation>
    </message>
</context>
<context>
    <name>Runwatch::SessionKeyStore</name>
    <message>
        <source>this session only</source>
        <translation>nur diese Sitzung</translation>
    </message>
</context>
<context>
    <name>Runwatch::StuckRuleDialog</name>
    <message>
        <source>Stuck Runs</source>
        <translation>Festgefahrene Läufe</translation>
    </message>
    <message>
        <source>A live run is flagged stuck when it makes no progress (no output, status change, progress or error) for a multiple of its expected duration: the service&apos;s estimate, else the median of the completed runs of its connection and model.</source>
        <translation>Ein laufender Lauf gilt als festgefahren, wenn er ein Vielfaches seiner erwarteten Dauer keinen Fortschritt macht (keine Ausgabe, keine Statusänderung, kein Fortschritt, kein Fehler): die Schätzung des Dienstes, sonst der Median der abgeschlossenen Läufe seiner Verbindung und seines Modells.</translation>
    </message>
    <message>
        <source> × expected duration</source>
        <translation> × erwartete Dauer</translation>
    </message>
    <message>
        <source>Silence that counts as stuck, as a multiple of the expected duration</source>
        <translation>Stille, die als festgefahren gilt, als Vielfaches der erwarteten Dauer</translation>
    </message>
    <message>
        <source>&amp;No progress for:</source>
        <translation>&amp;Kein Fortschritt für:</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Shortest silence that counts as stuck, in minutes</source>
        <translation>Kürzeste Stille, die als festgefahren gilt, in Minuten</translation>
    </message>
    <message>
        <source>A short job is not flagged because one answer came late.</source>
        <translation>Ein kurzer Auftrag wird nicht markiert, nur weil eine Antwort spät kam.</translation>
    </message>
    <message>
        <source>&amp;But at least:</source>
        <translation>&amp;Aber mindestens:</translation>
    </message>
</context>
<context>
    <name>Runwatch::TimelineView</name>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Run timeline</source>
        <translation>Zeitleiste des Laufs</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>Überlegung</translation>
    </message>
    <message>
        <source>Tool call</source>
        <translation>Tool-Aufruf</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Reasoning, tool calls, progress and status changes of the run</source>
        <translation>Überlegungen, Tool-Aufrufe, Fortschritt und Statuswechsel des Laufs</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>Bediener</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: %2 (%3)</source>
        <translation>%1: %2 (%3)</translation>
    </message>
</context>
<context>
    <name>Runwatch::TokenSource</name>
    <message>
        <source>The connection was closed.</source>
        <translation>Die Verbindung wurde geschlossen.</translation>
    </message>
    <message>
        <source>The token command could not be started.</source>
        <translation>Der Token-Befehl konnte nicht gestartet werden.</translation>
    </message>
    <message>
        <source>The token command printed more than %1 KiB: that is not a token.</source>
        <translation>Der Token-Befehl gab mehr als %1 KiB aus: Das ist kein Token.</translation>
    </message>
    <message>
        <source>The token command did not finish within %1 s.</source>
        <translation>Der Token-Befehl wurde nicht innerhalb von %1 s fertig.</translation>
    </message>
    <message>
        <source>The token command failed (exit code %1).</source>
        <translation>Der Token-Befehl ist fehlgeschlagen (Exit-Code %1).</translation>
    </message>
    <message>
        <source>The token command failed (exit code %1): %2</source>
        <translation>Der Token-Befehl ist fehlgeschlagen (Exit-Code %1): %2</translation>
    </message>
    <message>
        <source>The token command printed no token (expected the token alone on one line).</source>
        <translation>Der Token-Befehl gab kein Token aus (erwartet: das Token allein in einer Zeile).</translation>
    </message>
</context>
<context>
    <name>Runwatch::ToolCallsForm</name>
    <message>
        <source>Tool</source>
        <translation>Tool</translation>
    </message>
    <message>
        <source>(unnamed tool)</source>
        <translation>(unbenanntes Tool)</translation>
    </message>
    <message>
        <source>asks for approval</source>
        <translation>bittet um Freigabe</translation>
    </message>
    <message>
        <source>needs its output</source>
        <translation>braucht seine Ausgabe</translation>
    </message>
    <message>
        <source>on %1, %2</source>
        <translation>auf %1, %2</translation>
    </message>
    <message>
        <source>Arguments of %1</source>
        <translation>Argumente von %1</translation>
    </message>
    <message>
        <source>(no arguments)</source>
        <translation>(keine Argumente)</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Approve %1</source>
        <translation>%1 freigeben</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>Ablehnen</translation>
    </message>
    <message>
        <source>Reject %1</source>
        <translation>%1 ablehnen</translation>
    </message>
    <message>
        <source>Output of %1</source>
        <translation>Ausgabe von %1</translation>
    </message>
    <message>
        <source>Output of %1… (Ctrl+Enter sends all)</source>
        <translation>Ausgabe von %1 … (Strg+Eingabe sendet alles)</translation>
    </message>
    <message>
        <source>Only an edit of this call is allowed, which this panel does not offer (runwatch-cli respond --value).</source>
        <translation>Für diesen Aufruf ist nur eine Bearbeitung erlaubt, die dieses Feld nicht anbietet (runwatch-cli respond --value).</translation>
    </message>
    <message>
        <source>Reason for rejecting %1</source>
        <translation>Grund für die Ablehnung von %1</translation>
    </message>
    <message>
        <source>Reason (optional, sent to the agent)</source>
        <translation>Grund (optional, geht an den Agenten)</translation>
    </message>
</context>
<context>
    <name>Runwatch::TrayStatus</name>
    <message numerus="yes">
        <source>Runwatch — %n run(s) need you</source>
        <translation>
            <numerusform>Runwatch — %n Lauf braucht Sie</numerusform>
            <numerusform>Runwatch — %n Läufe brauchen Sie</numerusform>
        </translation>
    </message>
    <message>
        <source>No run needs you</source>
        <translation>Kein Lauf braucht Sie</translation>
    </message>
    <message>
        <source>Needs you</source>
        <translation>Braucht Sie</translation>
    </message>
    <message numerus="yes">
        <source>%n more…</source>
        <translation>
            <numerusform>%n weiterer …</numerusform>
            <numerusform>%n weitere …</numerusform>
        </translation>
    </message>
    <message>
        <source>Show Runwatch</source>
        <translation>Runwatch anzeigen</translation>
    </message>
    <message>
        <source>Quit Runwatch</source>
        <translation>Runwatch beenden</translation>
    </message>
</context>
<context>
    <name>Runwatch::TypedAnswerForm</name>
    <message>
        <source>(none)</source>
        <translation>(keine Angabe)</translation>
    </message>
    <message>
        <source>Answer as JSON</source>
        <translation>Antwort als JSON</translation>
    </message>
    <message>
        <source>The form is too complex to show field by field; type the answer as JSON</source>
        <translation>Das Formular ist zu komplex für eine Darstellung Feld für Feld; geben Sie die Antwort als JSON ein</translation>
    </message>
    <message>
        <source>Answer (JSON)</source>
        <translation>Antwort (JSON)</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Auswählen…</translation>
    </message>
    <message>
        <source>%1 (required)</source>
        <translation>%1 (Pflichtfeld)</translation>
    </message>
</context>
<context>
    <name>Runwatch::Usage</name>
    <message>
        <source>tokens: %1 · %2</source>
        <translation>Tokens: %1 · %2</translation>
    </message>
    <message>
        <source>%1 input</source>
        <translation>%1 Eingabe</translation>
    </message>
    <message>
        <source>input not reported</source>
        <translation>Eingabe nicht gemeldet</translation>
    </message>
    <message>
        <source>%1 output</source>
        <translation>%1 Ausgabe</translation>
    </message>
    <message>
        <source>output not reported</source>
        <translation>Ausgabe nicht gemeldet</translation>
    </message>
    <message>
        <source> (%1 reasoning)</source>
        <translation> (davon %1 Überlegungen)</translation>
    </message>
</context>
<context>
    <name>Runwatch::UsageTotalsLabel</name>
    <message>
        <source>Totals of the listed runs</source>
        <translation>Summen der aufgelisteten Läufe</translation>
    </message>
    <message>
        <source>Number of runs the filter lets through, their tokens and their cost</source>
        <translation>Zahl der Läufe, die der Filter durchlässt, ihre Tokens und ihre Kosten</translation>
    </message>
</context>
<context>
    <name>SearchQuery</name>
    <message>
        <source>A quote is not closed: %1</source>
        <translation>Ein Anführungszeichen ist nicht geschlossen: %1</translation>
    </message>
    <message>
        <source>The filter %1: needs a value (for example %1:%2)</source>
        <translation>Der Filter %1: braucht einen Wert (zum Beispiel %1:%2)</translation>
    </message>
    <message>
        <source>Unknown status &quot;%1&quot; (for example: failed, completed, in_progress, input_required, cancelled)</source>
        <translation>Unbekannter Status &quot;%1&quot; (zum Beispiel: failed, completed, in_progress, input_required, cancelled)</translation>
    </message>
    <message>
        <source>Cannot read the time &quot;%1&quot; (use 30m, 24h, 7d, 2w or a date such as 2026-11-01)</source>
        <translation>Die Zeit &quot;%1&quot; ist nicht lesbar (30m, 24h, 7d, 2w oder ein Datum wie 2026-11-01)</translation>
    </message>
    <message>
        <source>Unknown filter &quot;%1:&quot; (filters: status, backend, connection, model, since, until). To search for the text, put it in quotes: &quot;%1:%2&quot;</source>
        <translation>Unbekannter Filter &quot;%1:&quot; (Filter: status, backend, connection, model, since, until). Um nach dem Text zu suchen, setzen Sie ihn in Anführungszeichen: &quot;%1:%2&quot;</translation>
    </message>
</context>
<context>
    <name>StoreLocation</name>
    <message>
        <source>The folder of %1 cannot be written.</source>
        <translation>Der Ordner von %1 ist nicht beschreibbar.</translation>
    </message>
    <message>
        <source>There is no run store at %1 yet: Runwatch creates it when it opens it.</source>
        <translation>Unter %1 gibt es noch keine Laufdatenbank: Runwatch legt sie beim Öffnen an.</translation>
    </message>
    <message>
        <source>No run store was named.</source>
        <translation>Es wurde keine Laufdatenbank angegeben.</translation>
    </message>
    <message>
        <source>The run store URL cannot be read: %1</source>
        <translation>Die URL der Laufdatenbank ist nicht lesbar: %1</translation>
    </message>
    <message>
        <source>The run store URL contains a password, which is never kept with it.</source>
        <translation>Die URL der Laufdatenbank enthält ein Passwort; das wird nie mit ihr aufbewahrt.</translation>
    </message>
    <message>
        <source>The run store URL has the option %1, which the Run Store settings do not show; keep such a URL in RUNWATCH_STORE or --store.</source>
        <translation>Die URL der Laufdatenbank hat die Option %1, die die Einstellungen der Laufdatenbank nicht zeigen; behalten Sie eine solche URL in RUNWATCH_STORE oder --store.</translation>
    </message>
    <message>
        <source>Name the database server&apos;s host, or a service that names it.</source>
        <translation>Geben Sie den Host des Datenbankservers an oder einen Service, der ihn nennt.</translation>
    </message>
    <message>
        <source>Name the database user Runwatch logs in as.</source>
        <translation>Geben Sie den Datenbankbenutzer an, als der sich Runwatch anmeldet.</translation>
    </message>
    <message>
        <source>The port must be between 1 and 65535.</source>
        <translation>Der Port muss zwischen 1 und 65535 liegen.</translation>
    </message>
    <message>
        <source>The host is a name or an address, without a path or a user.</source>
        <translation>Der Host ist ein Name oder eine Adresse, ohne Pfad und ohne Benutzer.</translation>
    </message>
    <message>
        <source>Unknown TLS mode %1.</source>
        <translation>Unbekannter TLS-Modus %1.</translation>
    </message>
    <message>
        <source>Checking the server&apos;s certificate needs the CA certificate file it was issued by.</source>
        <translation>Die Prüfung des Serverzertifikats braucht die Datei des CA-Zertifikats, das es ausgestellt hat.</translation>
    </message>
    <message>
        <source>The CA certificate file %1 does not exist.</source>
        <translation>Die CA-Zertifikatsdatei %1 existiert nicht.</translation>
    </message>
    <message>
        <source>Cannot connect to %1: %2</source>
        <translation>Keine Verbindung zu %1: %2</translation>
    </message>
    <message>
        <source>Connected, but the schema version cannot be read: %1</source>
        <translation>Verbunden, aber die Schemaversion ist nicht lesbar: %1</translation>
    </message>
    <message>
        <source>This run store was written by a newer Runwatch (schema %1, this version knows %2). This version would leave it untouched: update Runwatch or choose another store.</source>
        <translation>Diese Laufdatenbank wurde von einem neueren Runwatch geschrieben (Schema %1, diese Version kennt %2). Diese Version ließe sie unberührt: aktualisieren Sie Runwatch oder wählen Sie eine andere Laufdatenbank.</translation>
    </message>
    <message>
        <source>The file holds no run store yet: Runwatch creates its tables when it opens it.</source>
        <translation>Die Datei enthält noch keine Laufdatenbank: Runwatch legt ihre Tabellen beim Öffnen an.</translation>
    </message>
    <message>
        <source>Connected. The database holds no run store yet: Runwatch creates its tables when it first opens it, which needs a role that may create tables.</source>
        <translation>Verbunden. Die Datenbank enthält noch keine Laufdatenbank: Runwatch legt ihre Tabellen beim ersten Öffnen an; das braucht eine Rolle, die Tabellen anlegen darf.</translation>
    </message>
    <message numerus="yes">
        <source>Connected: a run store (schema %1) with %n run(s).</source>
        <translation>
            <numerusform>Verbunden: eine Laufdatenbank (Schema %1) mit %n Lauf.</numerusform>
            <numerusform>Verbunden: eine Laufdatenbank (Schema %1) mit %n Läufen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Connected: a run store (schema %1).</source>
        <translation>Verbunden: eine Laufdatenbank (Schema %1).</translation>
    </message>
    <message>
        <source>This version upgrades it to schema %1 when it opens it, which needs the role that owns its tables.</source>
        <translation>Diese Version hebt sie beim Öffnen auf Schema %1 an; das braucht die Rolle, der ihre Tabellen gehören.</translation>
    </message>
</context>
<context>
    <name>ToolCalls</name>
    <message>
        <source>The run&apos;s request names no tool calls to answer.</source>
        <translation>Die Anfrage des Laufs nennt keine Tool-Aufrufe zum Beantworten.</translation>
    </message>
    <message numerus="yes">
        <source>%n tool calls are pending: give one output per call id.</source>
        <translation>
            <numerusform>%n Tool-Aufruf ist offen: Geben Sie eine Ausgabe je Aufruf-ID an.</numerusform>
            <numerusform>%n Tool-Aufrufe sind offen: Geben Sie eine Ausgabe je Aufruf-ID an.</numerusform>
        </translation>
    </message>
    <message>
        <source>This run asks for tool outputs and approvals: answer each call by its id.</source>
        <translation>Dieser Lauf bittet um Tool-Ausgaben und Freigaben: Beantworten Sie jeden Aufruf über seine ID.</translation>
    </message>
    <message>
        <source>This run asks to approve or reject tool calls.</source>
        <translation>Dieser Lauf bittet darum, Tool-Aufrufe freizugeben oder abzulehnen.</translation>
    </message>
    <message>
        <source>This run asks for tool outputs.</source>
        <translation>Dieser Lauf bittet um Tool-Ausgaben.</translation>
    </message>
    <message>
        <source>No pending tool call has the id &quot;%1&quot;.</source>
        <translation>Kein offener Tool-Aufruf hat die ID „%1“.</translation>
    </message>
    <message>
        <source>The tool call &quot;%1&quot; is answered twice.</source>
        <translation>Der Tool-Aufruf „%1“ wird zweimal beantwortet.</translation>
    </message>
    <message>
        <source>Every pending tool call needs an answer in the same submit; missing: %1</source>
        <translation>Jeder offene Tool-Aufruf braucht eine Antwort in derselben Übermittlung; es fehlen: %1</translation>
    </message>
    <message>
        <source>The service does not allow approving %1.</source>
        <translation>Der Dienst erlaubt nicht, %1 zu genehmigen.</translation>
    </message>
    <message>
        <source>The service does not allow rejecting %1.</source>
        <translation>Der Dienst erlaubt nicht, %1 abzulehnen.</translation>
    </message>
</context>
<context>
    <name>UsageTotals</name>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n Lauf</numerusform>
            <numerusform>%n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 Tokens</translation>
    </message>
    <message>
        <source>no prices set</source>
        <translation>keine Preise gesetzt</translation>
    </message>
    <message numerus="yes">
        <source>%n without a price</source>
        <translation>
            <numerusform>%n ohne Preis</numerusform>
            <numerusform>%n ohne Preis</numerusform>
        </translation>
    </message>
    <message>
        <source>Runs listed: %1</source>
        <translation>Aufgelistete Läufe: %1</translation>
    </message>
    <message>
        <source>Runs that reported token usage: %1</source>
        <translation>Läufe mit gemeldetem Token-Verbrauch: %1</translation>
    </message>
    <message>
        <source>Input tokens: %1</source>
        <translation>Eingabe-Tokens: %1</translation>
    </message>
    <message>
        <source>Output tokens: %1 (%2 reasoning)</source>
        <translation>Ausgabe-Tokens: %1 (%2 Reasoning)</translation>
    </message>
    <message numerus="yes">
        <source>Cost of %n priced run(s): %1</source>
        <translation>
            <numerusform>Kosten des %n Laufs mit Preis: %1</numerusform>
            <numerusform>Kosten der %n Läufe mit Preis: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) without a price for their model (Settings › Prices…)</source>
        <translation>
            <numerusform>%n Lauf ohne Preis für sein Modell (Einstellungen › Preise…)</numerusform>
            <numerusform>%n Läufe ohne Preis für ihr Modell (Einstellungen › Preise…)</numerusform>
        </translation>
    </message>
</context>
</TS>

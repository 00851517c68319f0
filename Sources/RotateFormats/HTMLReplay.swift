import FencePlanner
import Foundation
import Geodesy
import RotateJSON

/// A trip to watch: one self-contained HTML file (inline SVG, script and style; nothing fetched)
/// that replays a `ReplayScene` (a plan along its walk, or a strategy on an emulated phone) with a
/// time slider.
///
/// At each moment it shows the fences monitored then (orange; the others gray) and, dashed, the
/// circle registered in a fence's stead while it is monitored (an approach region), the refresh
/// circle in force, the path so far and the position, the fixes the app obtained (the latest
/// with its accuracy), the marks so far (each labelled with its place, an entry and an exit of
/// the same place at the same door sharing one label; a phone's event with a dotted line from
/// where it was decided; listed below the map, the latest first, with the registrations the
/// phone dropped or refused), and a status line: the time, the guarantee in force, how many
/// fences are monitored, the refresh radius, the location service. Hovering a fence names it (id,
/// name, radius or polygon, the circle registered in its stead, when it was monitored); layers
/// toggle; the wheel zooms and a drag pans; the scale bar follows the zoom; the legend names only
/// what the scene holds. The map is drawn with `SVGMap`'s projection and frame.
///
/// Elements a test can read: the slider `#time` (seconds from the first path point; an `input`
/// event redraws), each fence `.fence` with `data-id` (class `monitored` while monitored), each
/// approach region `.approach` with `data-id` (hidden while its place is not monitored), the
/// data block `#replay-data` (docs/formats.md), the status `#status`, and
/// `document.body.dataset.error`, set by any script error.
public enum HTMLReplay {
    /// The record as one HTML document, the map `width` pixels wide, `title` at the top.
    public static func document(_ record: PlanRecord, title: String, width: Double = 1_000) -> String {
        document(ReplayScene(record), title: title, width: width)
    }

    /// The scene as one HTML document, the map `width` pixels wide, `title` at the top.
    public static func document(_ scene: ReplayScene, title: String, width: Double = 1_000) -> String {
        let canvas = SVGMap.Canvas(fitting: scene.path, places: scene.places, isMonitored: { scene.monitored[$0] != nil }, width: width)
        let start = scene.times.first ?? 0
        let duration = max(0, (scene.times.last ?? 0) - start)
        func number(_ value: Double) -> String { CSVWriter.decimal(value, decimals: 1) }
        let startPoint = canvas.screen(scene.path.first ?? canvas.center)
        let names = scene.placeNames

        var svg: [String] = []
        svg.append("<g id=\"layer-refresh\" class=\"layer\">")
        for region in scene.refresh where region.radiusMeters > 0 {
            svg.append(
                "<polygon class=\"refresh\" data-from=\"\(number(region.fromSeconds - start))\" data-to=\"\(number(region.toSeconds - start))\" data-radius=\"\(number(region.radiusMeters))\" points=\"\(canvas.ring(region.center, region.radiusMeters))\"/>"
            )
        }
        svg.append("</g><g id=\"layer-fences\" class=\"layer\">")
        var drawsApproach = false
        for place in scene.places where canvas.shows(place) {
            let on = (scene.monitored[place.id] ?? []).map { "\(number($0.lowerBound - start)) \(number($0.upperBound - start))" }
                .joined(separator: ";")
            let shape =
                place.footprint.map { "footprint of \($0.vertexCount) vertices, \(number($0.areaSquareMeters)) m²" }
                ?? "circle of \(number(place.radiusMeters)) m"
            var attributes =
                "class=\"fence\" data-id=\"\(canvas.escape(place.id))\" data-name=\"\(canvas.escape(place.name ?? ""))\" data-shape=\"\(shape)\" data-on=\"\(on)\""
            if let circle = scene.registeredCircles[place.id] {
                // Drawn under the fence, shown while the place is monitored.
                drawsApproach = true
                attributes += " data-registered=\"circle of \(number(circle.radiusMeters)) m\""
                svg.append(
                    "<polygon class=\"approach\" data-id=\"\(canvas.escape(place.id))\" data-on=\"\(on)\" points=\"\(canvas.ring(circle.center, circle.radiusMeters))\"/>"
                )
            }
            if let footprint = place.footprint {
                svg.append("<path \(attributes) fill-rule=\"evenodd\" d=\"\(canvas.outline(footprint))\"/>")
            } else {
                svg.append("<polygon \(attributes) points=\"\(canvas.ring(place.coordinate, place.radiusMeters))\"/>")
            }
        }
        svg.append("</g>")

        // Pixels and seconds to a tenth: what the drawing resolves, and a short file.
        func tenth(_ value: Double) -> JSONValue { .number((value * 10).rounded() / 10) }
        func point(_ c: Coordinate) -> [JSONValue] {
            let (x, y) = canvas.screen(c)
            return [tenth(x), tenth(y)]
        }
        var data: [String: JSONValue] = [:]
        data["version"] = .number(2)
        data["duration"] = tenth(duration)
        data["metersPerUnit"] = .number(1 / canvas.scale)
        data["pathName"] = .string(scene.pathName)
        data["path"] = .array(zip(scene.times, scene.path).map { t, c in .array([tenth(t - start)] + point(c)) })
        if !scene.reselections.isEmpty {
            data["reselections"] = .array(
                scene.reselections.map {
                    .array([
                        tenth($0.timeSeconds - start), .string($0.guarantee), .number(Double($0.started)), .number(Double($0.stopped)),
                        tenth($0.refreshRadiusMeters),
                    ])
                })
        }
        data["states"] = .array(
            scene.states.map { .array([tenth($0.timeSeconds - start), .string($0.guarantee), $0.service.map(JSONValue.string) ?? .null]) })
        data["marks"] = .array(
            scene.marks.sorted { $0.timeSeconds < $1.timeSeconds }.map { mark in
                var row = [tenth(mark.timeSeconds - start)] + point(mark.position)
                row += [.string(mark.kind.rawValue), .string(mark.placeID.map { names[$0] ?? $0 } ?? "no place"), .string(mark.detail)]
                if let decided = mark.decidedSeconds, let position = mark.decidedPosition {
                    row += [tenth(decided - start)] + point(position)
                }
                return .array(row)
            })
        data["fixes"] = .array(
            scene.fixes.map { fix in
                .array(
                    [tenth(fix.timeSeconds - start)] + point(fix.position) + [
                        tenth((fix.accuracyMeters ?? 0) * canvas.scale), .string(fix.source),
                    ])
            })
        data["registrations"] = .array(
            scene.registrations.map {
                .array([tenth($0.timeSeconds - start), .string($0.regionID), .string($0.action), .string($0.outcome)])
            })
        let kinds = Set(scene.marks.map(\.kind))
        let legend = ReplayScene.Mark.Kind.allCases.filter(kinds.contains).map {
            "<span class=\"key key-\($0.rawValue)\">\(legendWords[$0] ?? $0.rawValue)</span>"
        }
        let toggles = layerToggles.filter { $0.id != "layer-fixes" || !scene.fixes.isEmpty }
            .map { "<label><input type=\"checkbox\" data-layer=\"\($0.id)\" checked> \($0.label)</label>" }.joined()

        let page = [
            "<!DOCTYPE html>",
            "<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">",
            "<title>\(canvas.escape(title))</title>",
            "<style>\(style)</style></head><body>",
            "<header><h1>\(canvas.escape(title))</h1>" + scene.summary.map { "<div class=\"summary\">\(canvas.escape($0))</div>" }.joined()
                + "<div id=\"status\"></div></header>",
            "<div id=\"controls\"><button id=\"play\" type=\"button\">play</button>"
                + "<input id=\"time\" type=\"range\" min=\"0\" max=\"\(number(duration))\" step=\"any\" value=\"0\" aria-label=\"time\">"
                + "<span id=\"clock\"></span><label>speed <select id=\"speed\"><option>1</option><option>10</option><option selected>60</option><option>300</option></select>×</label>"
                + toggles + "</div>",
            "<div id=\"legend\"><span class=\"key key-path\">\(canvas.escape(scene.pathName))</span>"
                + (scene.fixes.isEmpty ? "" : "<span class=\"key key-fix\">fixes the app obtained</span>")
                + "<span class=\"key key-monitored\">fence monitored</span><span class=\"key key-fence\">fence not monitored</span>"
                + (drawsApproach ? "<span class=\"key key-approach\">approach region registered for a fence</span>" : "")
                + (scene.refresh.isEmpty ? "" : "<span class=\"key key-refresh\">refresh region</span>") + legend.joined() + "</div>",
            "<div id=\"frame\"><svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(number(canvas.width)) \(number(canvas.height))\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>",
        ]
        let tail = [
            "<polyline id=\"path\" class=\"layer\" points=\"\"/><g id=\"layer-fixes\" class=\"layer\"><circle id=\"accuracy\" r=\"0\"/></g>"
                + "<g id=\"layer-marks\" class=\"layer\"></g><g id=\"layer-labels\" class=\"layer\"></g>",
            "<g id=\"start\"><circle cx=\"\(number(startPoint.0))\" cy=\"\(number(startPoint.1))\" r=\"6\"/></g><circle id=\"here\" r=\"7\"/>",
            "</svg><div id=\"scale\"><div id=\"bar\"></div><span id=\"scale-label\"></span></div><div id=\"tip\"></div></div>",
            "<ol id=\"log\" reversed></ol>",
            "<script type=\"application/json\" id=\"replay-data\">\(scriptData(JSONValue.object(data).text))</script>",
            "<script>\(script)</script></body></html>",
        ]
        return (page + svg + tail).joined(separator: "\n")
    }

    /// The legend's words for each kind of mark.
    static let legendWords: [ReplayScene.Mark.Kind: String] = [
        .entry: "entry", .exit: "exit", .visit: "visit", .miss: "missed", .stop: "stop detected", .osEntry: "phone's entry",
        .osExit: "phone's exit", .wake: "refresh exit (app woken)",
    ]

    /// JSON text made safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and U+2029 become
    /// `\u003c`, `\u003e`, `\u0026`, `\u2028` and `\u2029`.
    ///
    /// The HTML tokenizer reads a script element's text for `</script` and for `<!--` followed by
    /// `<script`, which puts it in the "script data double escaped" state, where `</script>` no
    /// longer ends the element: a place named `<!--<script` would swallow the page's own script.
    /// With no `<` in the text neither can occur. These characters appear in JSON only inside
    /// strings, where the escapes parse back to them, so `JSON.parse` reads the same value.
    static func scriptData(_ json: String) -> String {
        var out = String.UnicodeScalarView()
        out.reserveCapacity(json.unicodeScalars.count)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out.append(contentsOf: "\\u003c".unicodeScalars)
            case ">": out.append(contentsOf: "\\u003e".unicodeScalars)
            case "&": out.append(contentsOf: "\\u0026".unicodeScalars)
            case "\u{2028}": out.append(contentsOf: "\\u2028".unicodeScalars)
            case "\u{2029}": out.append(contentsOf: "\\u2029".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The layers a check box shows and hides.
    static let layerToggles: [(id: String, label: String)] = [
        ("layer-fences", "fences"), ("layer-refresh", "refresh"), ("path", "path"), ("layer-fixes", "fixes"), ("layer-marks", "events"),
        ("layer-labels", "labels"),
    ]

    static let style = """
        body{font:14px sans-serif;margin:0;color:#222;background:#fff}header{padding:8px 12px}h1{font-size:17px;margin:0 0 4px}
        .summary{color:#444;font-size:13px}#status{color:#222;margin-top:4px}#controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;padding:4px 12px}#time{flex:1;min-width:300px}
        #legend{display:flex;flex-wrap:wrap;gap:4px 14px;padding:2px 12px 6px;font-size:12px;color:#333}.key:before{content:"";display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px;border-radius:2px}
        .key-path:before{background:#1f2d5a;height:3px;vertical-align:3px}.key-fix:before{background:#e8590c;border-radius:6px;width:7px;height:7px}.key-monitored:before{background:#f5a623}
        .key-fence:before{background:#ddd;border:1px solid #8a8a8a}.key-refresh:before{border:2px dashed #3b7dd8}.key-entry:before{background:#2e9e44}.key-exit:before{background:#7b3fb0}
        .key-visit:before{background:#0b7a75;transform:rotate(45deg) scale(.8)}.key-miss:before{background:#d0021b}.key-stop:before{background:#0b7a75}
        .key-os-entry:before{border:2px solid #2e9e44;width:9px;height:9px}.key-os-exit:before{border:2px solid #7b3fb0;width:9px;height:9px}.key-wake:before{border:2px solid #3b7dd8;border-radius:7px;width:9px;height:9px}
        #frame{position:relative;border-top:1px solid #ddd;border-bottom:1px solid #ddd}#map{width:100%;height:auto;display:block;cursor:grab}
        .fence{fill:#9a9a9a;fill-opacity:.18;stroke:#8a8a8a;stroke-width:1}.fence.monitored{fill:#f5a623;fill-opacity:.5;stroke:#c77700}
        .fence:hover{stroke:#000;stroke-width:2}.approach{fill:none;stroke:#c77700;stroke-width:1;stroke-dasharray:3 3;pointer-events:none}
        .key-approach:before{border:1px dashed #c77700}.refresh{fill:none;stroke:#3b7dd8;stroke-width:1.5;stroke-dasharray:6 4}
        #path{fill:none;stroke:#1f2d5a;stroke-width:2.5;stroke-linejoin:round}#here{fill:#1f2d5a;stroke:#fff;stroke-width:2}
        .fix{fill:#e8590c;stroke:#fff;stroke-width:.5}#accuracy{fill:#e8590c;fill-opacity:.12;stroke:#e8590c;stroke-width:1}
        #start circle{fill:#2e9e44;stroke:#fff;stroke-width:2}.mark-entry{fill:#2e9e44}.mark-exit{fill:#7b3fb0}.mark-visit{fill:#0b7a75}.mark-stop{fill:#0b7a75}
        .mark-os-entry{fill:#fff;stroke:#2e9e44;stroke-width:2}.mark-os-exit{fill:#fff;stroke:#7b3fb0;stroke-width:2}.mark-wake{fill:#fff;stroke:#3b7dd8;stroke-width:2}
        .hollow{fill:#fff;stroke-width:2}.delay{stroke:#555;stroke-width:1.5;stroke-dasharray:2 3;fill:none}
        .mark-miss{stroke:#d0021b;stroke-width:3}.label{font:bold 12px sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3}
        #scale{position:absolute;left:12px;bottom:10px;font-size:12px}#bar{height:4px;border:2px solid #222;border-top:0}
        #tip{position:absolute;display:none;background:#fff;border:1px solid #999;padding:4px 6px;font-size:12px;pointer-events:none;max-width:340px}
        #log{font-size:13px;margin:8px 12px 16px 40px;padding:0}.log-miss{color:#b00016}.log-register{color:#8a4b00}
        """

    /// The replay's script: reads `#replay-data`, redraws at the slider's time. Labels are laid
    /// out at the view's scale (`layout()`): misses first, a label that would overlap one placed
    /// before moves up a line at a time, and one with no free line in nine is left out until
    /// zooming in makes room.
    static let script = """
        (function(){
        "use strict";
        window.addEventListener("error",function(e){document.body.dataset.error=String(e.message||e);});
        var data=JSON.parse(document.getElementById("replay-data").textContent);
        var svg=document.getElementById("map"),slider=document.getElementById("time"),ns="http://www.w3.org/2000/svg";
        function spans(text){return text?text.split(";").map(function(s){var p=s.split(" ");return [+p[0],+p[1]];}):[];}
        function within(list,t){for(var i=0;i<list.length;i++){if(t>=list[i][0]&&t<list[i][1])return true;}return false;}
        function clock(s){if(!isFinite(s))return s!==s?"?":s<0?"-∞":"∞";var n=s<0&&Math.round(-s)>0?"-":"";s=Math.round(Math.abs(s));var h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;return n+(h?h+":"+(m<10?"0":""):"")+m+":"+(x<10?"0":"")+x;}
        function node(name,attrs){var el=document.createElementNS(ns,name);for(var k in attrs)el.setAttribute(k,attrs[k]);return el;}
        var fences=[].slice.call(document.querySelectorAll(".fence")).map(function(el){return {el:el,on:spans(el.getAttribute("data-on"))};});
        var approaches=[].slice.call(document.querySelectorAll(".approach")).map(function(el){return {el:el,on:spans(el.getAttribute("data-on"))};});
        var refresh=[].slice.call(document.querySelectorAll(".refresh")).map(function(el){return {el:el,from:+el.getAttribute("data-from"),to:+el.getAttribute("data-to"),r:+el.getAttribute("data-radius")};});
        var marks=document.getElementById("layer-marks"),labels=document.getElementById("layer-labels"),log=document.getElementById("log");
        var colors={entry:"#2e9e44",exit:"#7b3fb0",visit:"#0b7a75",miss:"#d0021b",stop:"#0b7a75","os-entry":"#2e9e44","os-exit":"#7b3fb0",wake:"#3b7dd8"};
        var words={entry:"entry",exit:"exit",visit:"visit",miss:"missed",stop:"stop detected","os-entry":"phone's entry","os-exit":"phone's exit",wake:"refresh exit"};
        function outline(k){
          if(k==="miss")return "M-6,-6L6,6M-6,6L6,-6";
          if(k==="visit")return "M0,-8l7,8l-7,8l-7,-8z";
          if(k==="stop")return "M-6,-6h12v12h-12z";
          if(k==="wake")return "M-5,0a5,5 0 1,0 10,0a5,5 0 1,0 -10,0";
          if(k==="entry"||k==="os-entry")return "M0,-7l6,11h-12z";
          return "M0,7l6,-11h-12z";
        }
        // Marks and labels keep their size on screen as the map zooms: each shape is drawn
        // around its point and scaled; labels are laid out again (layout()).
        var shapes=[],labelled=[],priority={miss:0,visit:1,stop:2,"os-entry":3,entry:4,exit:5,"os-exit":6};
        var drawn=data.marks.map(function(m){
          var k=m[3],g=node("g",{}),shape=node("path",{d:outline(k),"class":"mark-"+k});
          if((k==="entry"||k==="exit")&&m[5]==="platform"){shape.setAttribute("class","mark-"+k+" hollow");shape.setAttribute("stroke",colors[k]);}
          if(m.length>6)g.appendChild(node("line",{x1:m[7],y1:m[8],x2:m[1],y2:m[2],"class":"delay"}));
          g.appendChild(shape);shapes.push({el:shape,x:m[1],y:m[2]});
          var title=node("title",{});title.textContent=words[k]+" "+m[4]+" ("+m[5]+") at "+clock(m[0]);g.appendChild(title);marks.appendChild(g);
          var label=null,said=(k==="miss"?"missed ":"")+m[4];
          if(k!=="wake"&&m[4]!=="no place"||k==="visit"){
            // An entry and an exit of the same place at the same door share one label.
            if(!labelled.some(function(p){return p.said===said&&Math.abs(p.x-m[1])<40&&Math.abs(p.y-m[2])<40;})){
              var text=node("text",{"class":"label",fill:colors[k]});text.textContent=said;labels.appendChild(text);
              label={x:m[1],y:m[2],said:said,text:text,rank:priority[k],order:labelled.length,crowded:false};labelled.push(label);}}
          var item=document.createElement("li");item.textContent=clock(m[0])+" "+words[k]+" "+m[4]+" ("+m[5]+")";if(k==="miss")item.className="log-miss";
          return {t:m[0],g:g,label:label,item:item};
        });
        // Each label's width at the full view, measured once while drawn.
        labelled.forEach(function(l){l.w=(l.text.getComputedTextLength&&l.text.getComputedTextLength())||l.said.length*7;});
        labelled.sort(function(a,b){return a.rank-b.rank||a.order-b.order;});
        // Lays the labels out at the view's scale: misses first, then visits, stops and the other
        // events, each in time order; a label that would overlap one placed before moves up a
        // line at a time, and one that finds no free line in nine is left out (crowded: its
        // mark keeps its tooltip and its line in the log). Zooming in frees room.
        function layout(){
          var s=view[2]/full[2],placed=[];
          labelled.forEach(function(l){
            var lx=l.x+9*s,ly=l.y-9*s,w=l.w*s,tries=0;
            function overlaps(p){return Math.abs(p.ly-ly)<14*s&&p.lx<lx+w&&lx<p.lx+p.w;}
            while(tries<9&&placed.some(overlaps)){ly-=14*s;tries++;}
            l.crowded=tries===9;
            if(l.crowded)return;
            placed.push({lx:lx,ly:ly,w:w});
            l.text.setAttribute("x",lx);l.text.setAttribute("y",ly);l.text.style.fontSize=12*s+"px";l.text.style.strokeWidth=3*s;
          });
          shapes.forEach(function(m){m.el.setAttribute("transform","translate("+m.x+","+m.y+") scale("+s+")");});
        }
        data.registrations.forEach(function(r){
          if(r[3]!=="dropped"&&r[3]!=="rejected"&&r[2]!=="reboot")return;
          var item=document.createElement("li");item.className="log-register";
          item.textContent=clock(r[0])+" "+(r[2]==="reboot"?"the phone restarted and lost every region; the app registered again":"registered "+r[1]+": "+(r[3]==="dropped"?"accepted, but not monitored (over the phone's limit)":"refused by the phone (over its limit)"));
          drawn.push({t:r[0],g:null,label:null,item:item});
        });
        drawn.sort(function(a,b){return a.t-b.t;});
        var fixLayer=document.getElementById("layer-fixes"),accuracy=document.getElementById("accuracy");
        var fixes=data.fixes.map(function(f){var c=node("circle",{cx:f[1],cy:f[2],r:2.5,"class":"fix"});var title=node("title",{});title.textContent=f[4]+" fix at "+clock(f[0]);c.appendChild(title);fixLayer.appendChild(c);return {t:f[0],el:c,f:f};});
        var path=document.getElementById("path"),here=document.getElementById("here");
        function index(list,t){var lo=0,hi=list.length-1;if(hi<0||t<list[0][0])return -1;while(lo<hi){var mid=(lo+hi+1)>>1;if(list[mid][0]<=t)lo=mid;else hi=mid-1;}return lo;}
        var services={"none":"none (region events only)","continuous":"continuous GNSS","significantChange":"significant changes (no GNSS)","periodic":"periodic network fixes"};
        function draw(t){
          var on=0;
          fences.forEach(function(f){var m=within(f.on,t);f.el.classList.toggle("monitored",m);if(m)on++;});
          approaches.forEach(function(a){a.el.style.display=within(a.on,t)?"":"none";});
          var radius=0;refresh.forEach(function(r){var shown=t>=r.from&&t<r.to;r.el.style.display=shown?"":"none";if(shown)radius=r.r;});
          var i=index(data.path,t),points=[];for(var k=0;k<=i;k++){points.push(data.path[k][1]+","+data.path[k][2]);}
          path.setAttribute("points",points.join(" "));
          if(i>=0){here.setAttribute("cx",data.path[i][1]);here.setAttribute("cy",data.path[i][2]);}
          var latest=null;fixes.forEach(function(f){var shown=f.t<=t;f.el.style.display=shown?"":"none";if(shown)latest=f.f;});
          if(latest){accuracy.setAttribute("cx",latest[1]);accuracy.setAttribute("cy",latest[2]);accuracy.setAttribute("r",latest[3]);}else{accuracy.setAttribute("r",0);}
          var s=index(data.states,t),state=s>=0?data.states[s]:null;
          while(log.firstChild)log.removeChild(log.firstChild);
          drawn.forEach(function(d){var shown=d.t<=t;if(d.g)d.g.style.display=shown?"":"none";if(d.label)d.label.text.style.display=shown&&!d.label.crowded?"":"none";if(shown)log.insertBefore(d.item,log.firstChild);});
          document.getElementById("clock").textContent=clock(t)+" of "+clock(data.duration);
          document.getElementById("status").textContent="at "+clock(t)+": "+on+" fences monitored, guarantee "+(state?state[1]:"none yet")+(radius?", refresh radius "+Math.round(radius)+" m":"")
            +"; location: "+(state&&state[2]?services[state[2]]||state[2]:"from "+data.pathName);
        }
        slider.addEventListener("input",function(){draw(+slider.value);});
        // Play keeps its own clock: a frame's step at 1x (a few hundredths of a second) must add
        // up even where the slider would round it away.
        var playing=false,last=0,now=0;
        function step(frame){if(!playing)return;var dt=last?(frame-last)/1000:0;last=frame;now=Math.min(data.duration,now+dt*(+document.getElementById("speed").value));slider.value=now;draw(now);if(now>=data.duration){playing=false;document.getElementById("play").textContent="play";return;}requestAnimationFrame(step);}
        document.getElementById("play").addEventListener("click",function(){playing=!playing;this.textContent=playing?"pause":"play";last=0;if(playing){if(+slider.value>=data.duration)slider.value=0;now=+slider.value;requestAnimationFrame(step);}});
        [].slice.call(document.querySelectorAll("[data-layer]")).forEach(function(box){box.addEventListener("change",function(){document.getElementById(box.getAttribute("data-layer")).style.display=box.checked?"":"none";});});
        var view=svg.getAttribute("viewBox").split(" ").map(Number),full=view.slice();
        function setView(zoomed){svg.setAttribute("viewBox",view.join(" "));scale();if(zoomed){layout();draw(+slider.value);}}
        function scale(){var perPixel=view[2]/svg.clientWidth*data.metersPerUnit,target=120*perPixel,p=Math.pow(10,Math.floor(Math.log10(target))),m=[1,2,5,10].map(function(f){return f*p;}).filter(function(v){return v<=target;}).pop()||p;
          document.getElementById("bar").style.width=(m/perPixel)+"px";document.getElementById("scale-label").textContent=m>=1000?(m/1000)+" km":m+" m";}
        svg.addEventListener("wheel",function(e){e.preventDefault();var r=svg.getBoundingClientRect(),fx=(e.clientX-r.left)/r.width,fy=(e.clientY-r.top)/r.height,k=e.deltaY>0?1.25:0.8;
          var w=Math.min(full[2]*4,Math.max(full[2]/64,view[2]*k)),h=w*full[3]/full[2];view=[view[0]+(view[2]-w)*fx,view[1]+(view[3]-h)*fy,w,h];setView(true);},{passive:false});
        var drag=null;svg.addEventListener("mousedown",function(e){drag={x:e.clientX,y:e.clientY,v:view.slice()};});
        window.addEventListener("mouseup",function(){drag=null;});
        window.addEventListener("mousemove",function(e){if(!drag)return;var k=view[2]/svg.clientWidth;view=[drag.v[0]-(e.clientX-drag.x)*k,drag.v[1]-(e.clientY-drag.y)*k,view[2],view[3]];setView(false);});
        var tip=document.getElementById("tip");
        fences.forEach(function(f){f.el.addEventListener("mousemove",function(e){var r=document.getElementById("frame").getBoundingClientRect(),name=f.el.getAttribute("data-name");
          tip.textContent=f.el.getAttribute("data-id")+(name?" ("+name+")":"")+", "+f.el.getAttribute("data-shape")+(f.el.hasAttribute("data-registered")?", registered as a "+f.el.getAttribute("data-registered")+" (an approach region)":"")+"; monitored "+(f.on.length?f.on.map(function(s){return clock(s[0])+"–"+clock(Math.min(s[1],data.duration));}).join(", "):"never");
          tip.style.left=(e.clientX-r.left+14)+"px";tip.style.top=(e.clientY-r.top+14)+"px";tip.style.display="block";});
          f.el.addEventListener("mouseleave",function(){tip.style.display="none";});});
        window.addEventListener("resize",scale);
        layout();draw(0);scale();
        })();
        """
}

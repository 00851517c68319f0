import FencePlanner
import Foundation
import Geodesy
import RotateJSON

/// A trip to watch: one self-contained HTML file (inline SVG, script and style; nothing fetched)
/// that replays a plan along its walk with a time slider.
///
/// At each moment it shows the fences monitored then (orange; the others gray), the refresh
/// circle in force, the path walked so far and the position, the entries, exits, visits and
/// misses so far (each labelled with its place, an entry and an exit of the same place at the
/// same door sharing one label; listed below the map, the latest first), and a status line: the time, the guarantee in
/// force, how many fences are monitored, the refresh radius. Hovering a fence names it (id, name,
/// radius or polygon, when it was monitored); layers toggle; the wheel zooms and a drag pans; the
/// scale bar follows the zoom. The map is drawn with `SVGMap`'s projection and frame.
///
/// Elements a test can read: the slider `#time` (seconds from the walk's first fix; an `input`
/// event redraws), each fence `.fence` with `data-id` (class `monitored` while monitored), the
/// status `#status`, and `document.body.dataset.error`, set by any script error.
public enum HTMLReplay {
    /// The record as one HTML document, the map `width` pixels wide, `title` at the top.
    public static func document(_ record: PlanRecord, title: String, width: Double = 1_000) -> String {
        let canvas = SVGMap.Canvas(fitting: record, width: width)
        let start = record.times.first ?? 0
        let duration = max(0, (record.times.last ?? 0) - start)
        func time(ofFix fix: Int) -> Double { (record.times.indices.contains(fix) ? record.times[fix] : record.times.last ?? 0) - start }
        func number(_ value: Double) -> String { CSVWriter.decimal(value, decimals: 1) }
        let startPoint = canvas.screen(record.walk.first ?? canvas.center)
        let names = record.placeNames

        var svg: [String] = []
        svg.append("<g id=\"layer-refresh\" class=\"layer\">")
        for (i, reselection) in record.reselections.enumerated() {
            guard let refresh = reselection.refresh, refresh.radiusMeters > 0 else { continue }
            let from = time(ofFix: reselection.fix)
            let to = i + 1 < record.reselections.count ? time(ofFix: record.reselections[i + 1].fix) : duration + 1
            svg.append(
                "<polygon class=\"refresh\" data-from=\"\(number(from))\" data-to=\"\(number(to))\" data-radius=\"\(number(refresh.radiusMeters))\" points=\"\(canvas.ring(refresh.center, refresh.radiusMeters))\"/>"
            )
        }
        svg.append("</g><g id=\"layer-fences\" class=\"layer\">")
        for place in record.places where canvas.shows(place) {
            let intervals = (record.monitored[place.id] ?? []).map { range in
                "\(number(time(ofFix: range.lowerBound))) \(number(range.upperBound + 1 < record.times.count ? time(ofFix: range.upperBound + 1) : duration + 1))"
            }
            let shape =
                place.footprint.map { "footprint of \($0.vertexCount) vertices, \(number($0.areaSquareMeters)) m²" }
                ?? "circle of \(number(place.radiusMeters)) m"
            let attributes =
                "class=\"fence\" data-id=\"\(canvas.escape(place.id))\" data-name=\"\(canvas.escape(place.name ?? ""))\" data-shape=\"\(shape)\" data-on=\"\(intervals.joined(separator: ";"))\""
            if let footprint = place.footprint {
                svg.append("<path \(attributes) fill-rule=\"evenodd\" d=\"\(canvas.outline(footprint))\"/>")
            } else {
                svg.append("<polygon \(attributes) points=\"\(canvas.ring(place.coordinate, place.radiusMeters))\"/>")
            }
        }
        svg.append("</g>")

        // Pixels and seconds to a tenth: what the drawing resolves, and a short file.
        func tenth(_ value: Double) -> JSONValue { .number((value * 10).rounded() / 10) }
        var data: [String: JSONValue] = [:]
        data["duration"] = tenth(duration)
        data["metersPerUnit"] = .number(1 / canvas.scale)
        data["path"] = .array(
            zip(record.times, record.walk).map { t, c in
                let (x, y) = canvas.screen(c)
                return .array([tenth(t - start), tenth(x), tenth(y)])
            })
        data["reselections"] = .array(
            record.reselections.map { r in
                .array([
                    tenth(time(ofFix: r.fix)), .string(r.guarantee.name), .number(Double(r.started)), .number(Double(r.stopped)),
                    tenth(r.refresh?.radiusMeters ?? 0),
                ])
            })
        var marks: [(time: Double, value: JSONValue)] = []
        for event in record.placeEvents {
            let (x, y) = canvas.screen(event.position)
            marks.append(
                (
                    event.timeSeconds - start,
                    .array([
                        tenth(event.timeSeconds - start), tenth(x), tenth(y), .string(event.entry ? "entry" : "exit"),
                        .string(names[event.placeID] ?? event.placeID), .string(event.inApp ? "in-app" : "platform"),
                    ])
                ))
        }
        for visit in record.visits {
            let (x, y) = canvas.screen(visit.position)
            marks.append(
                (
                    visit.arrivalSeconds - start,
                    .array([
                        tenth(visit.arrivalSeconds - start), tenth(x), tenth(y), .string("visit"),
                        .string(visit.placeID.map { names[$0] ?? $0 } ?? "no place"),
                        .string("p " + CSVWriter.decimal(visit.probability, decimals: 2)),
                    ])
                ))
        }
        for miss in record.misses {
            let (x, y) = canvas.screen(miss.position)
            marks.append(
                (
                    miss.timeSeconds - start,
                    .array([
                        tenth(miss.timeSeconds - start), tenth(x), tenth(y), .string("miss"), .string(names[miss.placeID] ?? miss.placeID),
                        .string(miss.avoidable ? "not monitored" : "more fences than slots"),
                    ])
                ))
        }
        data["marks"] = .array(marks.sorted { $0.time < $1.time }.map(\.value))

        let page = [
            "<!DOCTYPE html>",
            "<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">",
            "<title>\(canvas.escape(title))</title>",
            "<style>\(style)</style></head><body>",
            "<header><h1>\(canvas.escape(title))</h1><div id=\"status\"></div></header>",
            "<div id=\"controls\"><button id=\"play\" type=\"button\">play</button>"
                + "<input id=\"time\" type=\"range\" min=\"0\" max=\"\(number(duration))\" step=\"1\" value=\"0\" aria-label=\"time\">"
                + "<span id=\"clock\"></span><label>speed <select id=\"speed\"><option>1</option><option>10</option><option selected>60</option><option>300</option></select>×</label>"
                + layerToggles + "</div>",
            "<div id=\"frame\"><svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(number(canvas.width)) \(number(canvas.height))\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>",
        ]
        let tail = [
            "<polyline id=\"path\" class=\"layer\" points=\"\"/><g id=\"layer-marks\" class=\"layer\"></g><g id=\"layer-labels\" class=\"layer\"></g>",
            "<g id=\"start\"><circle cx=\"\(number(startPoint.0))\" cy=\"\(number(startPoint.1))\" r=\"6\"/></g><circle id=\"here\" r=\"7\"/>",
            "</svg><div id=\"scale\"><div id=\"bar\"></div><span id=\"scale-label\"></span></div><div id=\"tip\"></div></div>",
            "<ol id=\"log\" reversed></ol>",
            "<script type=\"application/json\" id=\"replay-data\">\(JSONValue.object(data).text.replacingOccurrences(of: "</", with: "<\\/"))</script>",
            "<script>\(script)</script></body></html>",
        ]
        return (page + svg + tail).joined(separator: "\n")
    }

    /// The check boxes that show and hide each layer.
    static let layerToggles = [
        ("layer-fences", "fences"), ("layer-refresh", "refresh"), ("path", "path"), ("layer-marks", "events"), ("layer-labels", "labels"),
    ]
    .map { id, label in "<label><input type=\"checkbox\" data-layer=\"\(id)\" checked> \(label)</label>" }.joined()

    static let style = """
        body{font:14px sans-serif;margin:0;color:#222;background:#fff}header{padding:8px 12px}h1{font-size:17px;margin:0 0 4px}
        #status{color:#444}#controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;padding:4px 12px}#time{flex:1;min-width:300px}
        #frame{position:relative;border-top:1px solid #ddd;border-bottom:1px solid #ddd}#map{width:100%;height:auto;display:block;cursor:grab}
        .fence{fill:#9a9a9a;fill-opacity:.18;stroke:#8a8a8a;stroke-width:1}.fence.monitored{fill:#f5a623;fill-opacity:.5;stroke:#c77700}
        .fence:hover{stroke:#000;stroke-width:2}.refresh{fill:none;stroke:#3b7dd8;stroke-width:1.5;stroke-dasharray:6 4}
        #path{fill:none;stroke:#1f2d5a;stroke-width:2.5;stroke-linejoin:round}#here{fill:#1f2d5a;stroke:#fff;stroke-width:2}
        #start circle{fill:#2e9e44;stroke:#fff;stroke-width:2}.mark-entry{fill:#2e9e44}.mark-exit{fill:#7b3fb0}.mark-visit{fill:#0b7a75}
        .mark-miss{stroke:#d0021b;stroke-width:3}.label{font:bold 12px sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3}
        #scale{position:absolute;left:12px;bottom:10px;font-size:12px}#bar{height:4px;border:2px solid #222;border-top:0}
        #tip{position:absolute;display:none;background:#fff;border:1px solid #999;padding:4px 6px;font-size:12px;pointer-events:none;max-width:340px}
        #log{font-size:13px;margin:8px 12px 16px 40px;padding:0}
        """

    /// The replay's script: reads `#replay-data`, redraws at the slider's time.
    static let script = """
        (function(){
        "use strict";
        window.addEventListener("error",function(e){document.body.dataset.error=String(e.message||e);});
        var data=JSON.parse(document.getElementById("replay-data").textContent);
        var svg=document.getElementById("map"),slider=document.getElementById("time"),ns="http://www.w3.org/2000/svg";
        function spans(text){return text?text.split(";").map(function(s){var p=s.split(" ");return [+p[0],+p[1]];}):[];}
        function within(list,t){for(var i=0;i<list.length;i++){if(t>=list[i][0]&&t<list[i][1])return true;}return false;}
        function clock(s){s=Math.round(s);var h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;return (h?h+":"+(m<10?"0":""):"")+m+":"+(x<10?"0":"")+x;}
        var fences=[].slice.call(document.querySelectorAll(".fence")).map(function(el){return {el:el,on:spans(el.getAttribute("data-on"))};});
        var refresh=[].slice.call(document.querySelectorAll(".refresh")).map(function(el){return {el:el,from:+el.getAttribute("data-from"),to:+el.getAttribute("data-to"),r:+el.getAttribute("data-radius")};});
        var marks=document.getElementById("layer-marks"),labels=document.getElementById("layer-labels"),log=document.getElementById("log");
        var colors={entry:"#2e9e44",exit:"#7b3fb0",visit:"#0b7a75",miss:"#d0021b"},placed=[];
        var drawn=data.marks.map(function(m){
          var g=document.createElementNS(ns,"g"),shape;
          if(m[3]==="miss"){shape=document.createElementNS(ns,"path");shape.setAttribute("d","M"+(m[1]-6)+","+(m[2]-6)+"L"+(m[1]+6)+","+(m[2]+6)+"M"+(m[1]-6)+","+(m[2]+6)+"L"+(m[1]+6)+","+(m[2]-6));}
          else if(m[3]==="visit"){shape=document.createElementNS(ns,"path");shape.setAttribute("d","M"+m[1]+","+(m[2]-8)+"l7,8l-7,8l-7,-8z");}
          else{shape=document.createElementNS(ns,"path");shape.setAttribute("d",m[3]==="entry"?"M"+m[1]+","+(m[2]-7)+"l6,11h-12z":"M"+m[1]+","+(m[2]+7)+"l6,-11h-12z");if(m[5]==="platform"){shape.setAttribute("fill","#fff");shape.setAttribute("stroke",colors[m[3]]);shape.setAttribute("stroke-width","2");}}
          shape.setAttribute("class","mark-"+m[3]);g.appendChild(shape);
          var title=document.createElementNS(ns,"title");title.textContent=m[3]+" "+m[4]+" ("+m[5]+") at "+clock(m[0]);g.appendChild(title);marks.appendChild(g);
          var words=(m[3]==="miss"?"missed ":"")+m[4],text=null;
          if(!placed.some(function(p){return p.words===words&&Math.abs(p.x-m[1])<40&&Math.abs(p.y-m[2])<40;})){
            text=document.createElementNS(ns,"text");text.setAttribute("x",m[1]+9);text.setAttribute("y",m[2]-9);text.setAttribute("class","label");text.setAttribute("fill",colors[m[3]]);
            text.textContent=words;labels.appendChild(text);placed.push({words:words,x:m[1],y:m[2]});}
          var item=document.createElement("li");item.textContent=clock(m[0])+" "+m[3]+" "+m[4]+" ("+m[5]+")";
          return {t:m[0],g:g,text:text,item:item};
        });
        var path=document.getElementById("path"),here=document.getElementById("here");
        function index(t){var lo=0,hi=data.path.length-1;if(hi<0||t<data.path[0][0])return -1;while(lo<hi){var mid=(lo+hi+1)>>1;if(data.path[mid][0]<=t)lo=mid;else hi=mid-1;}return lo;}
        function draw(t){
          var on=0;
          fences.forEach(function(f){var m=within(f.on,t);f.el.classList.toggle("monitored",m);if(m)on++;});
          var radius=0;refresh.forEach(function(r){var shown=t>=r.from&&t<r.to;r.el.style.display=shown?"":"none";if(shown)radius=r.r;});
          var i=index(t),points=[];for(var k=0;k<=i;k++){points.push(data.path[k][1]+","+data.path[k][2]);}
          path.setAttribute("points",points.join(" "));
          if(i>=0){here.setAttribute("cx",data.path[i][1]);here.setAttribute("cy",data.path[i][2]);}
          var guarantee="none yet";data.reselections.forEach(function(r){if(r[0]<=t)guarantee=r[1];});
          while(log.firstChild)log.removeChild(log.firstChild);
          drawn.forEach(function(d){var shown=d.t<=t;d.g.style.display=shown?"":"none";if(d.text)d.text.style.display=shown?"":"none";if(shown)log.insertBefore(d.item,log.firstChild);});
          document.getElementById("clock").textContent=clock(t)+" of "+clock(data.duration);
          document.getElementById("status").textContent="at "+clock(t)+": "+on+" fences monitored, guarantee "+guarantee+(radius?", refresh radius "+Math.round(radius)+" m":"")+"; location from the walk's fixes";
        }
        slider.addEventListener("input",function(){draw(+slider.value);});
        var playing=false,last=0;
        function step(now){if(!playing)return;var dt=last?(now-last)/1000:0;last=now;var t=Math.min(data.duration,+slider.value+dt*(+document.getElementById("speed").value));slider.value=t;draw(t);if(t>=data.duration){playing=false;document.getElementById("play").textContent="play";return;}requestAnimationFrame(step);}
        document.getElementById("play").addEventListener("click",function(){playing=!playing;this.textContent=playing?"pause":"play";last=0;if(playing){if(+slider.value>=data.duration)slider.value=0;requestAnimationFrame(step);}});
        [].slice.call(document.querySelectorAll("[data-layer]")).forEach(function(box){box.addEventListener("change",function(){document.getElementById(box.getAttribute("data-layer")).style.display=box.checked?"":"none";});});
        var view=svg.getAttribute("viewBox").split(" ").map(Number),full=view.slice();
        function setView(){svg.setAttribute("viewBox",view.join(" "));scale();}
        function scale(){var perPixel=view[2]/svg.clientWidth*data.metersPerUnit,target=120*perPixel,p=Math.pow(10,Math.floor(Math.log10(target))),m=[1,2,5,10].map(function(f){return f*p;}).filter(function(v){return v<=target;}).pop()||p;
          document.getElementById("bar").style.width=(m/perPixel)+"px";document.getElementById("scale-label").textContent=m>=1000?(m/1000)+" km":m+" m";}
        svg.addEventListener("wheel",function(e){e.preventDefault();var r=svg.getBoundingClientRect(),fx=(e.clientX-r.left)/r.width,fy=(e.clientY-r.top)/r.height,k=e.deltaY>0?1.25:0.8;
          var w=Math.min(full[2]*4,Math.max(full[2]/64,view[2]*k)),h=w*full[3]/full[2];view=[view[0]+(view[2]-w)*fx,view[1]+(view[3]-h)*fy,w,h];setView();},{passive:false});
        var drag=null;svg.addEventListener("mousedown",function(e){drag={x:e.clientX,y:e.clientY,v:view.slice()};});
        window.addEventListener("mouseup",function(){drag=null;});
        window.addEventListener("mousemove",function(e){if(!drag)return;var k=view[2]/svg.clientWidth;view=[drag.v[0]-(e.clientX-drag.x)*k,drag.v[1]-(e.clientY-drag.y)*k,view[2],view[3]];setView();});
        var tip=document.getElementById("tip");
        fences.forEach(function(f){f.el.addEventListener("mousemove",function(e){var r=document.getElementById("frame").getBoundingClientRect(),name=f.el.getAttribute("data-name");
          tip.textContent=f.el.getAttribute("data-id")+(name?" ("+name+")":"")+", "+f.el.getAttribute("data-shape")+"; monitored "+(f.on.length?f.on.map(function(s){return clock(s[0])+"–"+clock(Math.min(s[1],data.duration));}).join(", "):"never");
          tip.style.left=(e.clientX-r.left+14)+"px";tip.style.top=(e.clientY-r.top+14)+"px";tip.style.display="block";});
          f.el.addEventListener("mouseleave",function(){tip.style.display="none";});});
        window.addEventListener("resize",scale);
        draw(0);scale();
        })();
        """
}
